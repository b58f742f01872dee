import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { OutboxReply } from '../domain/outbound-reply.ts';
import { retryDelayMs } from '../domain/retry-delay.ts';
import type { MessagingMetrics } from '../service/messaging-metrics.ts';
import { followUpStore } from '../store/follow-up-store.ts';
import { outboxStore } from '../store/outbox-store.ts';
import type { SendOutcome } from './send-api.ts';

/** Retry delays of a failed send; the last one repeats. */
const SEND_RETRY_MS = [2_000, 10_000, 60_000, 300_000, 900_000];

/**
 * The provider's "re-engagement" error: the contact's 24-hour window is closed and only a template may go
 * out. Trying again cannot help, so the reply fails at once (README, "Follow-ups").
 */
export const REENGAGEMENT_ERROR = 131047;

/** What recording sends needs. */
export interface SendResultDeps {
  db: Pick<Database, 'query'>;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  /** Send attempts of one reply before it is `failed` (MESSAGING_SEND_MAX_ATTEMPTS). */
  maxAttempts: number;
}

/**
 * Records what sending replies did: the sent ones in one statement, with the send API's message id; each
 * failed one on its own (rare), due again after a backoff or `failed` once out of attempts.
 */
export async function recordSendResults(
  deps: SendResultDeps,
  results: ReadonlyArray<readonly [OutboxReply, SendOutcome]>,
): Promise<void> {
  const sent = results.filter(
    (r): r is readonly [OutboxReply, { providerId: string }] => 'providerId' in r[1],
  );
  if (sent.length > 0) {
    await outboxStore.markSent(
      deps.db,
      sent.map(([reply, outcome]) => ({ id: reply.id, providerId: outcome.providerId })),
    );
    for (let i = 0; i < sent.length; i++) deps.metrics.sent('sent');
  }
  for (const [reply, outcome] of results) {
    if (!('error' in outcome)) continue;
    const reengagement = outcome.code === REENGAGEMENT_ERROR;
    const failed = reengagement || reply.sendAttempts >= deps.maxAttempts;
    const delay = retryDelayMs(SEND_RETRY_MS, reply.sendAttempts);
    await outboxStore.recordFailure(deps.db, reply.id, {
      failed,
      nextSendAt: failed ? null : new Date(deps.clock.nowMs() + delay),
      error: outcome.error,
    });
    // A follow-up carried by this reply takes the failure as its own state.
    if (failed) {
      const status = reengagement ? 'failed_reengagement' : 'failed';
      await followUpStore.settleFailed(deps.db, reply.id, status, outcome.error, deps.clock.now());
    }
    deps.metrics.sent(failed ? 'failed' : 'retry');
    deps.logger.warn(
      { messageId: reply.id, attempt: reply.sendAttempts, failed, error: outcome.error },
      'messaging: reply not sent',
    );
  }
}
