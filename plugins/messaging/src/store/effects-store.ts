import type { Classification } from '../classifier/types.ts';
import type { CaptureSession, KbLookup, Language } from '../conversation/types.ts';
import type { LeadContact } from '../domain/lead.ts';
import { followUpStore } from './follow-up-store.ts';
import { kbAnswerStore } from './kb-answer-store.ts';
import { leadStore } from './lead-store.ts';
import { notificationStore } from './notification-store.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Everything processing one inbound message changes, decided before anything is written. */
export interface MessageEffects {
  messageId: string;
  conversationId: string;
  classification: Classification;
  /** What the message changes in the staff inbox (README, "Staff API", "Agent inbox"). */
  inbox: {
    /** An agent active after this moment holds the conversation (domain/handoff.ts): the bot stays silent. */
    heldAfter: Date;
    /** The status an escalation rule gives the conversation (null: none). */
    status: 'pending' | null;
    inboundText: string | null;
    /** The text of the bot's last reply to it (null: no reply). */
    replyText: string | null;
  };
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
  /** What the knowledge base gave the message (null: it was not asked); recorded in messaging_kb_answers. */
  knowledge: KbLookup | null;
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

    const held = await updateConversations(tx, effects, now);
    // The contact wrote: what was scheduled to chase them is moot (README, "Follow-ups"). The follow-up pass
    // never waits for a row lock (SKIP LOCKED), so taking the follow-ups after the conversations cannot deadlock.
    await followUpStore.cancelForInbound(tx, [...new Set(effects.map((e) => e.conversationId))], now);

    const leads = effects.filter((e) => e.leadPatch !== null);
    await leadStore.upsertMany(
      tx,
      leads.map((e) => ({
        conversationId: e.conversationId,
        ...(e.leadPatch as NonNullable<MessageEffects['leadPatch']>),
      })),
      now,
    );
    await kbAnswerStore.record(tx, effects, now);
    await notificationStore.notifyMany(
      tx,
      effects.flatMap((e) => e.notifications.map((n) => ({ ...n, conversationId: e.conversationId }))),
      now,
    );

    // The bot does not answer a conversation an agent holds now, even if it did not when the message was
    // decided: an agent who took over meanwhile must not see a bot reply go out after theirs.
    const replies = effects
      .filter((e) => !held.has(e.conversationId))
      .flatMap((e) =>
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

/**
 * Writes each message's conversation state, and its inbox state: one more unread message, the last
 * activity and its text (the bot's reply when it answers, else the contact's message), `pending` when an
 * escalation rule asks for a person, and `open` again when the conversation was resolved. Returns the
 * conversations an agent holds at this moment. The UPDATE locks each conversation row until the batch
 * commits and reads its latest committed `agent_active_at` (READ COMMITTED re-reads a row changed by a
 * transaction it waited for), and an agent's reply or take updates the same row: so either the agent's
 * write committed first and is seen here, or it waits for this batch and its reply goes out after the
 * bot's (ADR 0010).
 */
async function updateConversations(
  tx: Queryable,
  effects: readonly MessageEffects[],
  now: Date,
): Promise<Set<string>> {
  const { rows } = await tx.query<{ id: string; held: boolean | null }>(
    `UPDATE messaging_conversations c
        SET capture = u.capture, language = u.language, default_answers_in_a_row = u.streak,
            contact_name = COALESCE(u.contact_name, c.contact_name), last_inbound_at = $2, updated_at = $2,
            unread_count = c.unread_count + 1,
            -- An agent's reply stamped later than this batch's clock keeps its place and its text.
            last_activity_at = greatest(c.last_activity_at, $2),
            last_message_text = CASE
              WHEN c.last_activity_at > $2 THEN c.last_message_text
              WHEN c.agent_active_at > u.held_after THEN u.inbound_text
              ELSE coalesce(u.reply_text, u.inbound_text) END,
            status = CASE
              WHEN u.status IS NOT NULL AND (c.agent_active_at > u.held_after) IS NOT TRUE THEN u.status
              WHEN c.status = 'resolved' THEN 'open'
              ELSE c.status END,
            resolved_at = NULL
       FROM unnest($1::uuid[], $3::jsonb[], $4::text[], $5::int[], $6::text[], $7::timestamptz[], $8::text[],
                   $9::text[], $10::text[])
            AS u(id, capture, language, streak, contact_name, held_after, status, inbound_text, reply_text)
      WHERE c.id = u.id
      RETURNING c.id, c.agent_active_at > u.held_after AS held`,
    [
      effects.map((e) => e.conversationId),
      now,
      effects.map((e) => JSON.stringify(e.session)),
      effects.map((e) => e.language),
      effects.map((e) => e.defaultStreak),
      effects.map((e) => e.contactName),
      effects.map((e) => e.inbox.heldAfter),
      effects.map((e) => e.inbox.status),
      effects.map((e) => e.inbox.inboundText),
      effects.map((e) => e.inbox.replyText),
    ],
  );
  return new Set(rows.filter((row) => row.held === true).map((row) => row.id));
}
