import { formatGoldLine } from '../classifier/gold-set.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { feedbackStore } from '../store/feedback-store.ts';
import type { FeedbackDeps } from './feedback-service.ts';

/** Pairs per query: bounds the memory and the duration of each statement, whatever the export's size. */
export const GOLD_SET_BATCH = 500;

/**
 * The corrections the caller sees as gold-set lines (README, "Feedback", "Growing the gold set"): the
 * customer message a corrected bot reply answered, labelled with the corrected intent, in the conversation's
 * language, once per (text, intent). Yields one chunk of lines per batch, each batch a keyset query after the
 * last pair of the one before, so a large export never holds more than one batch.
 */
export async function* goldSetChunks(
  deps: Pick<FeedbackDeps, 'db'>,
  scope: StaffScope,
  intents: readonly string[],
  batch = GOLD_SET_BATCH,
): AsyncGenerator<string> {
  let after: readonly [string, string] | null = null;
  for (;;) {
    const rows = await feedbackStore.goldSetBatch(
      deps.db,
      { intents, after, limit: batch },
      clusterLimit(scope),
    );
    if (rows.length > 0) yield rows.map((row) => `${formatGoldLine(row)}\n`).join('');
    const last = rows.at(-1);
    if (rows.length < batch || !last) return;
    after = [last.text, last.intent];
  }
}
