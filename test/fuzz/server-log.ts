/**
 * What the fuzzed gateway logged at warn level and above, kept small: what it logged about each request
 * (the error behind a 5xx, an audit row it could not write, an upstream call that failed), and every other
 * warning or error (failed background passes), which no fuzzed request should be able to cause.
 */
import type { DestinationStream } from 'pino';
import { DEPLOYMENT_ADVICE } from '../../plugins/auth/src/index.ts';

export interface ServerLog {
  destination: DestinationStream;
  /**
   * What was logged about a request and not taken yet: the error behind its 5xx (`type: message (code)`)
   * and every other warning or error (`message — error`). Taken once: a client may send the same
   * X-Request-Id again.
   */
  take(requestId: string): { error: string | undefined; failures: readonly string[] };
  /** Warnings and errors about no request: `message — error` → how many times. */
  otherFailures(): ReadonlyMap<string, number>;
}

interface LogLine {
  msg?: string;
  reqId?: string;
  requestId?: string;
  code?: string;
  err?: { type?: string; message?: string; code?: string };
}

/**
 * Warnings that report an outcome of a request the gateway rightly accepted, not a failure of its own: a
 * fuzzed PATCH may remove a tenant's webhook URL or point it at a host that does not exist, and the deliveries
 * still queued for that tenant then end as failed, which the dispatcher reports at warn for operators.
 */
const ACCEPTED_OUTCOMES = new Set([
  'kyc webhook failed; no more automatic attempts',
  // Advice about the deployment's settings and admins, logged once at boot: no request causes it.
  DEPLOYMENT_ADVICE,
]);

export function serverLog(): ServerLog {
  const errors = new Map<string, string>();
  const perRequest = new Map<string, string[]>();
  const others = new Map<string, number>();
  let pending = '';
  const take = (line: LogLine) => {
    const code = line.err?.code ?? line.code;
    const err = line.err ? `${line.err.type ?? 'Error'}: ${line.err.message ?? ''}` : '';
    const cause = `${err}${code ? ` (${code})` : ''}`;
    if (line.msg !== undefined && ACCEPTED_OUTCOMES.has(line.msg)) return;
    const id = line.reqId ?? line.requestId;
    if (id && line.msg === 'request failed') errors.set(id, cause);
    else if (id)
      perRequest.set(id, [...(perRequest.get(id) ?? []), `${line.msg ?? ''} — ${cause.slice(0, 300)}`]);
    else {
      const key = `${line.msg ?? ''}${cause ? ` — ${cause.slice(0, 300)}` : ''}`;
      others.set(key, (others.get(key) ?? 0) + 1);
    }
  };
  return {
    destination: {
      write(chunk: string) {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const text of lines) if (text) take(JSON.parse(text) as LogLine);
      },
    },
    take(requestId) {
      const taken = { error: errors.get(requestId), failures: perRequest.get(requestId) ?? [] };
      errors.delete(requestId);
      perRequest.delete(requestId);
      return taken;
    },
    otherFailures: () => others,
  };
}
