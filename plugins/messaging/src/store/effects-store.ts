import type { Classification } from '../classifier/types.ts';
import type { CaptureSession, Language } from '../conversation/types.ts';
import type { LeadContact } from '../domain/lead.ts';
import { leadStore } from './lead-store.ts';
import { notificationStore } from './notification-store.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Everything processing one inbound message changes, decided before anything is written. */
export interface MessageEffects {
  messageId: string;
  conversationId: string;
  classification: Classification;
  /** Fields to merge into the conversation's lead (null: the lead is not touched). */
  leadPatch: LeadContact | null;
  notifications: Array<{
    scopes: ReadonlyArray<'cluster' | 'global'>;
    eventKey: string;
    kind: string;
    payload: Record<string, unknown>;
  }>;
  replies: Array<{ template: string; body: string; payload: Record<string, unknown> }>;
  session: CaptureSession;
  language: Language;
  defaultStreak: number;
  contactName: string | null;
}

/** A reply written to the outbox; `leased`: held by the writing worker, which sends it after the commit. */
export interface QueuedReply {
  id: string;
  conversationId: string;
  payload: Record<string, unknown>;
  leased: boolean;
}

/**
 * Writes the effects of a batch of processed messages with one statement per kind (arrays unnested in
 * SQL), in the caller's transaction. It starts by marking the messages processed — only those still
 * queued — and writes the other effects for exactly those, so effects can never be written twice for a
 * message, even by a worker whose batch was retried.
 */
export const effectsStore = {
  async write(
    tx: Queryable,
    batch: readonly MessageEffects[],
    now: Date,
    leaseUntil: Date | null = null,
  ): Promise<QueuedReply[]> {
    if (batch.length === 0) return [];
    const marked = await tx.query<{ id: string }>(
      `UPDATE messaging_messages m
          SET processing_status = 'processed', processed_at = $2, tier = u.tier, intent = u.intent, score = u.score,
              margin = u.margin, next_attempt_at = NULL, last_error = NULL
         FROM unnest($1::uuid[], $3::smallint[], $4::text[], $5::real[], $6::real[]) AS u(id, tier, intent, score, margin)
        WHERE m.id = u.id AND m.processing_status = 'queued'
       RETURNING m.id`,
      [
        batch.map((e) => e.messageId),
        now,
        batch.map((e) => e.classification.tier),
        batch.map((e) => e.classification.intent),
        batch.map((e) => e.classification.score),
        batch.map((e) => e.classification.margin),
      ],
    );
    const mine = new Set(marked.rows.map((row) => row.id));
    const effects = batch.filter((e) => mine.has(e.messageId));
    if (effects.length === 0) return [];

    await tx.query(
      `UPDATE messaging_conversations c
          SET capture = u.capture, language = u.language, default_answers_in_a_row = u.streak,
              contact_name = COALESCE(u.contact_name, c.contact_name), last_inbound_at = $2, updated_at = $2
         FROM unnest($1::uuid[], $3::jsonb[], $4::text[], $5::int[], $6::text[])
              AS u(id, capture, language, streak, contact_name)
        WHERE c.id = u.id`,
      [
        effects.map((e) => e.conversationId),
        now,
        effects.map((e) => JSON.stringify(e.session)),
        effects.map((e) => e.language),
        effects.map((e) => e.defaultStreak),
        effects.map((e) => e.contactName),
      ],
    );

    const leads = effects.filter((e) => e.leadPatch !== null);
    await leadStore.upsertMany(
      tx,
      leads.map((e) => ({
        conversationId: e.conversationId,
        ...(e.leadPatch as NonNullable<MessageEffects['leadPatch']>),
      })),
      now,
    );
    await notificationStore.notifyMany(
      tx,
      effects.flatMap((e) => e.notifications.map((n) => ({ ...n, conversationId: e.conversationId }))),
      now,
    );

    const replies = effects.flatMap((e) =>
      e.replies.map((r) => ({ ...r, conversationId: e.conversationId, inReplyTo: e.messageId })),
    );
    if (replies.length === 0) return [];
    // A conversation with no reply pending gets its new replies leased to this worker (`leaseUntil`), which
    // sends them as soon as the transaction commits; one with replies still pending (in flight, or waiting
    // for a retry) leaves them to the sender's claim, which keeps each conversation's order. The `pending`
    // probe reads the statement's snapshot: it sees the replies committed before, not the ones it inserts.
    // WITH ORDINALITY keeps the replies' order in `seq` (they are sent in that order).
    const { rows } = await tx.query<{ id: string; seq: string; leased: boolean }>(
      `WITH pending AS (
         SELECT DISTINCT e.conversation_id FROM messaging_messages e
          WHERE e.delivery_status = 'pending' AND e.conversation_id = ANY($1::uuid[])
       )
       INSERT INTO messaging_messages
         (conversation_id, direction, type, text, payload, created_at, delivery_status, template, in_reply_to,
          next_send_at, send_attempts)
       SELECT u.conversation_id, 'outbound', 'text', u.body, u.payload, $6, 'pending', u.template, u.in_reply_to,
              CASE WHEN $7::timestamptz IS NULL OR p.conversation_id IS NOT NULL THEN $6 ELSE $7 END,
              CASE WHEN $7::timestamptz IS NULL OR p.conversation_id IS NOT NULL THEN 0 ELSE 1 END
         FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::uuid[])
              WITH ORDINALITY AS u(conversation_id, body, payload, template, in_reply_to, ord)
         LEFT JOIN pending p ON p.conversation_id = u.conversation_id
        ORDER BY u.ord
       RETURNING id, seq, send_attempts = 1 AS leased`,
      [
        replies.map((r) => r.conversationId),
        replies.map((r) => r.body),
        replies.map((r) => JSON.stringify(r.payload)),
        replies.map((r) => r.template),
        replies.map((r) => r.inReplyTo),
        now,
        leaseUntil,
      ],
    );
    // Rows take their `seq` in insertion order, which is the order of `replies`.
    const inserted = rows.sort((a, b) => Number(a.seq) - Number(b.seq));
    return replies.map((reply, i) => {
      const row = inserted[i] as (typeof rows)[number];
      return { id: row.id, conversationId: reply.conversationId, payload: reply.payload, leased: row.leased };
    });
  },
};
