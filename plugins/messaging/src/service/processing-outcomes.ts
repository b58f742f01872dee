import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import { retryDelayMs } from '../domain/retry-delay.ts';
import { queueStore, type QueueHead } from '../store/queue-store.ts';
import type { MessagingMetrics } from './messaging-metrics.ts';

/** Retry delays after a failed processing attempt; the last one repeats. */
const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

/** What recording an attempt's outcome needs. */
export interface OutcomeDeps {
  db: Pick<Database, 'query'>;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  /** Attempts of one message before it is dead-lettered (MESSAGING_MAX_ATTEMPTS). */
  maxAttempts: number;
}

/**
 * Records a failed attempt: the message is due again after the next retry delay, or dead-lettered once it
 * has had `maxAttempts`. The retry is due a delay after the attempt began (`startedMs`), not after the
 * failure was noticed: the attempt is visible as counted from its start, so the time it is next due must
 * not depend on how long the failing work took.
 */
export async function recordFailure(
  deps: OutcomeDeps,
  head: QueueHead,
  err: unknown,
  startedMs: number,
): Promise<void> {
  const now = deps.clock.nowMs();
  const dead = head.attempts + 1 >= deps.maxAttempts;
  const delay = retryDelayMs(RETRY_DELAYS_MS, head.attempts + 1);
  await queueStore.recordFailure(deps.db, head.id, {
    dead,
    nextAttemptAt: dead ? null : new Date(startedMs + delay),
    error: String((err as Error).message).slice(0, 500),
  });
  deps.logger.warn(
    { messageId: head.id, attempt: head.attempts + 1, dead, err: { message: (err as Error).message } },
    dead ? 'messaging: message dead-lettered' : 'messaging: processing failed; will retry',
  );
  deps.metrics.processed(dead ? 'dead' : 'retry', latency(head, now));
}

/** Counts the batch's messages that did not fail as processed, with their latency. */
export function recordProcessed(
  deps: Pick<OutcomeDeps, 'clock' | 'metrics'>,
  heads: readonly QueueHead[],
  failed: ReadonlyArray<[QueueHead, unknown]>,
): void {
  const end = deps.clock.nowMs();
  for (const head of heads)
    if (!failed.some(([h]) => h === head)) deps.metrics.processed('processed', latency(head, end));
}

/** Seconds from the provider's timestamp of a message to `nowMs`. */
function latency(head: QueueHead, nowMs: number): number {
  return Math.max(0, nowMs - (head.providerTimestamp?.getTime() ?? nowMs)) / 1000;
}
