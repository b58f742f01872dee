import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Clock } from '../../../../gateway/src/plugin-api.ts';
import type { ClaimedDelivery } from '../store/delivery-store.ts';
import { SIGNATURE_HEADER, signWebhook } from './signature.ts';
import { NonPublicTargetError, type WebhookTargets } from './webhook-targets.ts';

/** Error texts are the receiver's business, not ours to store in bulk. */
const MAX_ERROR_LENGTH = 500;

/** How one attempt went: the answer's status, or why none came, and how long it took. */
export interface AttemptResult {
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /** No retry can succeed (the target is not allowed): the delivery fails now. */
  final?: boolean;
}

export interface SendDeps {
  clock: Clock;
  timeoutMs: number;
  /**
   * Where deliveries may connect: each attempt resolves and checks the host, and connects to what it checked.
   */
  targets: Pick<WebhookTargets, 'lookup' | 'checkLiteral'>;
}

/**
 * POSTs a claimed delivery's body, signed now with the tenant's current secret, to the tenant's current URL.
 * A 2xx answer is a success; any other status, a refused target, a network error or a timeout is a failed
 * attempt, described without secrets.
 */
export async function sendDelivery(deps: SendDeps, delivery: ClaimedDelivery): Promise<AttemptResult> {
  if (delivery.url === null || delivery.secret === null) {
    return { httpStatus: null, error: 'the tenant has no webhook URL any more', durationMs: 0 };
  }
  const timestamp = Math.floor(deps.clock.nowMs() / 1000);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const url = new URL(delivery.url);
    deps.targets.checkLiteral(url);
    const status = await postOnce(url, {
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Webhooks/1',
        [SIGNATURE_HEADER]: signWebhook(delivery.secret, delivery.body, timestamp),
        'gatehouse-delivery': delivery.id,
        'gatehouse-event': delivery.eventType,
      },
      body: delivery.body,
      lookup: deps.targets.lookup,
      timeoutMs: deps.timeoutMs,
    });
    const ok = status >= 200 && status < 300;
    return { httpStatus: status, error: ok ? null : `HTTP ${status}`, durationMs: elapsed() };
  } catch (err) {
    return {
      httpStatus: null,
      error: describeFailure(err, deps.timeoutMs),
      durationMs: elapsed(),
      final: err instanceof NonPublicTargetError,
    };
  }
}

/**
 * One POST over node:http(s), answering the response status. The connection gets its address from
 * `lookup` (the target check), never from a second resolution. Redirects are not followed: a redirect is
 * not an answer, and following it would send a signed body somewhere the tenant did not register. The
 * answer's body is not needed and is discarded.
 */
function postOnce(
  url: URL,
  request: { headers: Record<string, string>; body: string; lookup: LookupFunction; timeoutMs: number },
): Promise<number> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: request.lookup,
        agent: false,
        signal: AbortSignal.timeout(request.timeoutMs),
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/** A short, secret-free description of why no HTTP answer came. */
function describeFailure(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  // fetch reports network failures as "fetch failed" with the socket error as its cause (an
  // AggregateError without message when every address of the host refused).
  const cause = err instanceof Error ? err.cause : undefined;
  const message =
    cause instanceof Error
      ? cause.message || (cause as NodeJS.ErrnoException).code || cause.name
      : err instanceof Error
        ? err.message
        : String(err);
  return message.slice(0, MAX_ERROR_LENGTH);
}
