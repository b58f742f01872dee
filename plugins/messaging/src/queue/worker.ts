import type { Clock } from '../../../../gateway/src/clock.ts';
import type { Database } from '../../../../gateway/src/db/database.ts';
import type { Logger } from '../../../../gateway/src/logger.ts';
import { startLoop, type Loop } from './loop.ts';

/**
 * The processing queue's loop: finds conversations with due messages and processes up to `concurrency`
 * of them at once, each strictly in order (processor.ts). It polls every `intervalMs` and is woken at
 * once by `kick()` (the webhook, after a commit that queued messages). The work lives in Postgres, so
 * every replica may run a worker.
 */
export function startQueueWorker(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  concurrency: number;
  intervalMs: number;
  processConversation(conversationId: string): Promise<number>;
}): Loop {
  return startLoop({
    name: 'queue',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    async pass() {
      const { rows } = await deps.db.query<{ conversation_id: string }>(
        `SELECT conversation_id FROM messaging_messages
          WHERE processing_status = 'queued' AND next_attempt_at <= $1
          GROUP BY conversation_id ORDER BY min(seq) LIMIT $2`,
        [deps.clock.now(), deps.concurrency * 8],
      );
      const ids = rows.map((row) => row.conversation_id);
      let next = 0;
      let processed = 0;
      await Promise.all(
        Array.from({ length: Math.min(deps.concurrency, ids.length) }, async () => {
          while (next < ids.length) processed += await deps.processConversation(ids[next++] as string);
        }),
      );
      return processed;
    },
  });
}
