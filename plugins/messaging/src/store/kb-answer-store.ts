import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { KbLookup } from '../conversation/types.ts';

/**
 * messaging_kb_answers (migrations/messaging/0005): for each message the knowledge base was asked about, the
 * chunks found with their scores, whether it answered, and the KB version (README, "Knowledge base").
 */
export const kbAnswerStore = {
  /** Records the lookups of a batch's messages, in the batch's transaction (one statement). */
  async record(
    tx: Queryable,
    effects: ReadonlyArray<{ messageId: string; knowledge: KbLookup | null }>,
    now: Date,
  ): Promise<void> {
    const asked = effects.flatMap((e) => (e.knowledge === null ? [] : [{ id: e.messageId, k: e.knowledge }]));
    if (asked.length === 0) return;
    await tx.query(
      `INSERT INTO messaging_kb_answers (message_id, answered, chunk_ids, scores, kb_version, created_at)
       SELECT u.id, u.answered, ARRAY(SELECT jsonb_array_elements_text(u.chunk_ids))::uuid[],
              ARRAY(SELECT jsonb_array_elements_text(u.scores))::real[], u.kb_version, $6
         FROM unnest($1::uuid[], $2::boolean[], $3::jsonb[], $4::jsonb[], $5::bigint[])
              AS u(id, answered, chunk_ids, scores, kb_version)
       ON CONFLICT (message_id) DO NOTHING`,
      [
        asked.map((a) => a.id),
        asked.map((a) => a.k.answer !== null),
        asked.map((a) => JSON.stringify(a.k.chunks.map((c) => c.id))),
        asked.map((a) => JSON.stringify(a.k.chunks.map((c) => c.score))),
        asked.map((a) => a.k.kbVersion),
        now,
      ],
    );
  },
};
