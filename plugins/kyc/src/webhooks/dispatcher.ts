import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { WorkerTask } from '../service/worker.ts';
import { backoffDelayMs } from './backoff.ts';
import { deliveryStore, type ClaimedDelivery, type DeliveryStatus } from '../store/delivery-store.ts';
import { SIGNATURE_HEADER, signWebhook } from './signature.ts';
import { NonPublicTargetError, type WebhookTargets } from './webhook-targets.ts';

/** Beyond the HTTP timeout, how long a claimed delivery stays with its worker before others may retry. */
const LEASE_MARGIN_MS = 60_000;
/** Error texts are the receiver's business, not ours to store in bulk. */
const MAX_ERROR_LENGTH = 500;

interface AttemptResult {
  httpStatus: number | null;
  error: string | null;
  durationMs: number;
  /** No retry can succeed (the target is not allowed): the delivery fails now. */
  final?: boolean;
}

/**
 * The outbox's send side (issue 5, point 7), a worker task: claims due deliveries, POSTs each signed body
 * to the tenant's current URL, and records the attempt. 2xx means delivered; any other status, a network
 * error or a timeout schedules the next attempt with backoff (backoff.ts), until KYC_WEBHOOK_MAX_ATTEMPTS
 * attempts since the delivery was (re)queued have failed: then it is `failed`, and only a manual resend
 * sends it again.
 *
 * No transaction is held across the HTTP call: a receiver may take up to the timeout to answer, and an
 * open transaction would hold a pooled connection and row locks that long, per delivery. Instead the
 * claim is one short statement (SKIP LOCKED, so replicas share the work) that pushes `next_attempt_at`
 * to the end of a lease (timeout + 1 minute) and reserves the attempt number; the HTTP call runs with no
 * connection held; a second short statement settles the outcome, guarded by the attempt number. If the
 * process dies mid-flight, the lease runs out and any replica tries again. Delivery is therefore at least
 * once: receivers deduplicate on the delivery id.
 */
export function createWebhookDispatcher(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: Registry;
  timeoutMs: number;
  maxAttempts: number;
  /** Where deliveries may connect: each attempt resolves and checks the host, and connects to what it checked. */
  targets: Pick<WebhookTargets, 'lookup' | 'checkLiteral'>;
  batch: number;
}): WorkerTask {
  const { db, clock, logger } = deps;
  const attempts = new Counter({
    name: 'gatehouse_kyc_webhook_attempts_total',
    help: 'KYC webhook delivery attempts by outcome (delivered, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [deps.metrics],
  });

  const post = async (delivery: ClaimedDelivery): Promise<AttemptResult> => {
    if (delivery.url === null || delivery.secret === null) {
      return { httpStatus: null, error: 'the tenant has no webhook URL any more', durationMs: 0 };
    }
    const timestamp = Math.floor(clock.nowMs() / 1000);
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
  };

  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const result = await post(delivery);
    const now = clock.now();
    const failures = delivery.attempt - delivery.queuedAtAttempt;
    let status: DeliveryStatus;
    let nextAttemptAt: Date | null = null;
    if (result.error === null) status = 'delivered';
    else if (failures >= deps.maxAttempts || delivery.url === null || result.final === true)
      status = 'failed';
    else {
      status = 'pending';
      nextAttemptAt = new Date(now.getTime() + backoffDelayMs(failures));
    }
    const settled = await deliveryStore.settle(db.pool, {
      id: delivery.id,
      attempt: delivery.attempt,
      ...result,
      status,
      nextAttemptAt,
      at: now,
    });
    attempts.inc({ outcome: status === 'pending' ? 'retry' : status });
    // Never the URL (it may carry a token), the secret or the signature.
    const fields = {
      deliveryId: delivery.id,
      verificationId: delivery.verificationId,
      tenantId: delivery.tenantId,
      attempt: delivery.attempt,
      httpStatus: result.httpStatus,
      durationMs: result.durationMs,
      ...(result.error === null ? {} : { error: result.error }),
      ...(nextAttemptAt ? { nextAttemptAt: nextAttemptAt.toISOString() } : {}),
      ...(settled ? {} : { superseded: true }),
    };
    if (status === 'delivered') logger.info(fields, 'kyc webhook delivered');
    else if (status === 'pending') logger.info(fields, 'kyc webhook attempt failed; will retry');
    else logger.warn(fields, 'kyc webhook failed; no more automatic attempts');
  };

  return {
    name: 'webhook deliveries',
    async run() {
      const now = clock.now();
      const leaseUntil = new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS);
      const claimed = await deliveryStore.claimDue(db.pool, now, leaseUntil, deps.batch);
      // In parallel: one slow receiver costs the pass one timeout, not one per delivery.
      const results = await Promise.allSettled(claimed.map(attempt));
      const failed = results.find((r) => r.status === 'rejected');
      // A delivery whose outcome could not be stored is retried when its lease runs out.
      if (failed) throw failed.reason;
      return claimed.length;
    },
  };
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
