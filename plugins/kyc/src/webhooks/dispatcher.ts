import { Counter, type Registry } from 'prom-client';
import type { Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { WorkerTask } from '../service/worker.ts';
import { deliveryStore, type ClaimedDelivery, type DeliveryStatus } from '../store/delivery-store.ts';
import { backoffDelayMs } from './backoff.ts';
import { sendDelivery, type AttemptResult, type SendDeps } from './send-delivery.ts';

/** Beyond the HTTP timeout, how long a claimed delivery stays with its worker before others may retry. */
const LEASE_MARGIN_MS = 60_000;

interface DispatcherDeps extends SendDeps {
  db: Database;
  logger: Logger;
  maxAttempts: number;
}

/** Where an attempt leaves its delivery. */
interface Outcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
}

/**
 * The outbox's send side, a worker task (README, "Retries and order"): claims due deliveries, POSTs each
 * signed body to the tenant's current URL (send-delivery.ts), and records the attempt. 2xx means delivered;
 * any other status, a network error or a timeout schedules the next attempt with backoff (backoff.ts),
 * until KYC_WEBHOOK_MAX_ATTEMPTS attempts since the delivery was (re)queued have failed: then it is
 * `failed`, and only a manual resend sends it again.
 *
 * No transaction is held across the HTTP call: a receiver may take up to the timeout to answer, and an
 * open transaction would hold a pooled connection and row locks that long, per delivery. Instead the
 * claim is one short statement (SKIP LOCKED, so replicas share the work) that pushes `next_attempt_at`
 * to the end of a lease (timeout + 1 minute) and reserves the attempt number; the HTTP call runs with no
 * connection held; a second short statement settles the outcome, guarded by the attempt number. If the
 * process dies mid-flight, the lease runs out and any replica tries again. Delivery is therefore at least
 * once: receivers deduplicate on the delivery id.
 */
export function createWebhookDispatcher(
  deps: DispatcherDeps & { metrics: Registry; batch: number },
): WorkerTask {
  const attempts = new Counter({
    name: 'gatehouse_kyc_webhook_attempts_total',
    help: 'KYC webhook delivery attempts by outcome (delivered, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [deps.metrics],
  });
  const attempt = async (delivery: ClaimedDelivery): Promise<void> => {
    const status = await attemptDelivery(deps, delivery);
    attempts.inc({ outcome: status === 'pending' ? 'retry' : status });
  };

  return {
    name: 'webhook deliveries',
    async run() {
      const now = deps.clock.now();
      const leaseUntil = new Date(now.getTime() + deps.timeoutMs + LEASE_MARGIN_MS);
      const claimed = await deliveryStore.claimDue(deps.db.pool, now, leaseUntil, deps.batch);
      // In parallel: one slow receiver costs the pass one timeout, not one per delivery.
      const results = await Promise.allSettled(claimed.map(attempt));
      const failed = results.find((r) => r.status === 'rejected');
      // A delivery whose outcome could not be stored is retried when its lease runs out.
      if (failed) throw failed.reason;
      return claimed.length;
    },
  };
}

/** Sends one claimed delivery, settles it, logs how it went, and answers where it left the delivery. */
async function attemptDelivery(deps: DispatcherDeps, delivery: ClaimedDelivery): Promise<DeliveryStatus> {
  const result = await sendDelivery(deps, delivery);
  const now = deps.clock.now();
  const outcome = outcomeOf(delivery, result, now, deps.maxAttempts);
  const settled = await deliveryStore.settle(deps.db.pool, {
    id: delivery.id,
    attempt: delivery.attempt,
    ...result,
    ...outcome,
    at: now,
  });
  logAttempt(deps.logger, delivery, result, outcome, settled);
  return outcome.status;
}

/**
 * Delivered on success; failed when this round's attempts are used up, the tenant removed its webhook or
 * the target is refused; otherwise pending again after the backoff.
 */
function outcomeOf(
  delivery: ClaimedDelivery,
  result: AttemptResult,
  now: Date,
  maxAttempts: number,
): Outcome {
  const failures = delivery.attempt - delivery.queuedAtAttempt;
  if (result.error === null) return { status: 'delivered', nextAttemptAt: null };
  if (failures >= maxAttempts || delivery.url === null || result.final === true) {
    return { status: 'failed', nextAttemptAt: null };
  }
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + backoffDelayMs(failures)) };
}

/** Logs an attempt: never the URL (it may carry a token), the secret or the signature. */
function logAttempt(
  logger: Logger,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  outcome: Outcome,
  settled: boolean,
): void {
  const fields = {
    deliveryId: delivery.id,
    verificationId: delivery.verificationId,
    tenantId: delivery.tenantId,
    attempt: delivery.attempt,
    httpStatus: result.httpStatus,
    durationMs: result.durationMs,
    ...(result.error === null ? {} : { error: result.error }),
    ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt.toISOString() } : {}),
    ...(settled ? {} : { superseded: true }),
  };
  if (outcome.status === 'delivered') logger.info(fields, 'kyc webhook delivered');
  else if (outcome.status === 'pending') logger.info(fields, 'kyc webhook attempt failed; will retry');
  else logger.warn(fields, 'kyc webhook failed; no more automatic attempts');
}
