import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface ModelRequest {
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }>; response_format?: unknown };
}

/** What the stand-in answers: a JSON object as the completion's content, a raw content string, or an error. */
export type ModelAnswer =
  | { json: unknown }
  | { content: string }
  | { status: number }
  | { hang: true }
  /** Answers once the promise settles with the answer it gives (a model the test holds back). */
  | { later: Promise<ModelAnswer> };

/**
 * An OpenAI-compatible chat-completions endpoint as a real HTTP server on loopback: a language-model endpoint
 * cannot run in the tests, so the code reaches a stand-in over the network.
 */
export interface ModelStandIn {
  /** The base URL to configure (`LLM_BASE_URL`), ending in /v1. */
  baseUrl: string;
  requests: ModelRequest[];
  answerWith(answer: (request: ModelRequest) => ModelAnswer): void;
  close(): Promise<void>;
}

export async function startModelStandIn(): Promise<ModelStandIn> {
  const requests: ModelRequest[] = [];
  let answer: (request: ModelRequest) => ModelAnswer = () => ({ json: {} });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const request: ModelRequest = {
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ModelRequest['body'],
      };
      requests.push(request);
      respond(res, request, answer(request), requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    answerWith: (next) => {
      answer = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function respond(res: ServerResponse, request: ModelRequest, planned: ModelAnswer, id: number): void {
  if ('hang' in planned) return; // the client's timeout ends it; close() drops the socket
  if ('later' in planned) {
    void planned.later.then((next) => respond(res, request, next, id));
    return;
  }
  if ('status' in planned) {
    res
      .writeHead(planned.status, { 'content-type': 'application/json' })
      .end('{"error":{"message":"stand-in"}}');
    return;
  }
  const content = 'json' in planned ? JSON.stringify(planned.json) : planned.content;
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: `chatcmpl-${id}`,
      object: 'chat.completion',
      model: request.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    }),
  );
}
