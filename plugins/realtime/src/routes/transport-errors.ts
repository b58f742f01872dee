import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Server } from 'socket.io';
import { toProblem } from '../../../../gateway/src/plugin-api.ts';
import { realtimeErrors } from '../errors.ts';

const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/**
 * socket.io's transport layer (engine.io) answers a request it cannot use (an unknown transport or session, a
 * bad handshake method, a malformed query) with its own small JSON body. Every other error of the gateway is
 * problem+json with a stable code, so those answers are rewritten: same status, the gateway's shape
 * (`realtime.transport.invalid`, 400, or `realtime.transport.forbidden`, 403).
 */
export function answerTransportErrorsAsProblems(io: Server): void {
  const engine = io.engine as unknown as { handleRequest(req: unknown, res: ServerResponse): void };
  const handle = engine.handleRequest.bind(engine);
  engine.handleRequest = (req, res) => handle(req, problemOnError(res));
}

/** A response whose 4xx answer, once written, is replaced by the problem for its status. */
function problemOnError(res: ServerResponse): ServerResponse {
  const writeHead = res.writeHead.bind(res) as (
    status: number,
    headers?: Record<string, string>,
  ) => ServerResponse;
  const end = res.end.bind(res) as (body?: string) => ServerResponse;
  let failedWith = 0;
  res.writeHead = (status: number, ...rest: unknown[]) => {
    if (status >= 400 && status < 500) {
      failedWith = status;
      return res;
    }
    return (writeHead as (...args: unknown[]) => ServerResponse)(status, ...rest);
  };
  res.end = ((...args: unknown[]) => {
    if (failedWith === 0) return (end as (...a: unknown[]) => ServerResponse)(...args);
    const error = realtimeErrors.create(
      failedWith === 403 ? 'realtime.transport.forbidden' : 'realtime.transport.invalid',
    );
    writeHead(error.status, { 'content-type': PROBLEM_CONTENT_TYPE });
    return end(JSON.stringify(toProblem(error, randomUUID())));
  }) as ServerResponse['end'];
  return res;
}
