import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { effectsStore, type MessageEffects, type QueuedReply } from '../store/effects-store.ts';
import type { QueueHead } from '../store/queue-store.ts';

/**
 * Writes the effects of a batch whose shared write failed, each message in a transaction of its own, so
 * one bad message cannot block the others. The attempt already counted stays counted.
 */
export async function writeOneByOne(
  db: Pick<Database, 'transaction'>,
  heads: readonly QueueHead[],
  done: readonly MessageEffects[],
  now: Date,
  leaseUntil: Date | null,
): Promise<{ processed: number; queued: QueuedReply[]; failed: Array<[QueueHead, unknown]> }> {
  const written = { processed: 0, queued: [] as QueuedReply[], failed: [] as Array<[QueueHead, unknown]> };
  for (const one of done) {
    try {
      written.queued.push(...(await db.transaction((tx) => effectsStore.write(tx, [one], now, leaseUntil))));
      written.processed++;
    } catch (err) {
      written.failed.push([heads.find((h) => h.id === one.messageId) as QueueHead, err]);
    }
  }
  return written;
}
