import type { CaptureSession, Language } from '../conversation/types.ts';
import type { LeadContact } from '../domain/lead.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Advisory-lock namespace of "a worker is processing this conversation" (any constant int4). */
const LOCK_NAMESPACE = 0x6d7367; // 'msg'

/** The next message of a conversation, with what processing it needs to know. */
export interface QueueHead {
  id: string;
  conversationId: string;
  type: string;
  text: string | null;
  contactName: string | null;
  providerTimestamp: Date | null;
  attempts: number;
  phoneNumberId: string;
  contactPhone: string | null;
  contactUserId: string | null;
  capture: CaptureSession;
  defaultAnswersInARow: number;
  language: Language;
  lead: LeadContact & { status: string | null };
  /** When an agent last replied or took the conversation (null: never, or handed back); domain/handoff.ts. */
  agentActiveAt: Date | null;
}

/** Messages waiting for processing and dead-lettered ones, with the age of the oldest waiting one. */
export interface QueueDepth {
  queued: number;
  dead: number;
  /** Seconds since the oldest queued message arrived; null when none is queued. */
  oldest: number | null;
}

/**
 * The processing queue's rows: inbound messages in `messaging_messages` with a `processing_status`
 * (plugins/messaging/README.md, "How a message flows", and ADR 0006). What processing writes when a
 * message is done is the effects store's.
 */
export const queueStore = {
  /**
   * Takes the next message of up to `batchSize` conversations that are due at `now`, in the caller's
   * transaction: never two of one conversation (a conversation's messages are processed one at a time, in
   * provider timestamp order), each conversation held by a transaction-scoped advisory lock taken with try,
   * so other workers and replicas skip it instead of waiting.
   */
  async takeHeads(tx: Queryable, now: Date, batchSize: number): Promise<QueueHead[]> {
    const { rows } = await tx.query<QueueHead>(
      `WITH oldest AS (
         -- The oldest queued messages: a bounded window of narrow rows, so a batch costs the same
         -- whatever the backlog (the message bodies are read only for the heads chosen).
         SELECT m.id, m.conversation_id, m.provider_timestamp, m.attempts, m.next_attempt_at, m.seq
           FROM messaging_messages m
          WHERE m.processing_status = 'queued'
          ORDER BY m.seq LIMIT $2 * 4
       ), heads AS (
         SELECT DISTINCT ON (o.conversation_id) o.* FROM oldest o
          ORDER BY o.conversation_id, o.provider_timestamp, o.seq
       ), due AS (
         -- A window's first message of a conversation is its head only if no earlier one (by provider
         -- timestamp) arrived later, outside the window.
         SELECT h.* FROM heads h
          WHERE h.next_attempt_at <= $1
            AND NOT EXISTS (
              SELECT 1 FROM messaging_messages e
               WHERE e.conversation_id = h.conversation_id AND e.processing_status = 'queued'
                 AND (e.provider_timestamp, e.seq) < (h.provider_timestamp, h.seq))
          ORDER BY h.seq LIMIT $2
       )
       SELECT d.id, d.conversation_id AS "conversationId", m.type, m.text,
              c.agent_active_at AS "agentActiveAt",
              m.payload->'contact'->>'name' AS "contactName", d.provider_timestamp AS "providerTimestamp",
              d.attempts, c.phone_number_id AS "phoneNumberId", c.contact_phone AS "contactPhone",
              c.contact_user_id AS "contactUserId", c.capture, c.default_answers_in_a_row AS "defaultAnswersInARow", c.language,
              json_build_object('name', l.name, 'email', l.email, 'phone', l.phone, 'status', l.status) AS lead
         FROM due d
         JOIN messaging_messages m ON m.id = d.id
         JOIN messaging_conversations c ON c.id = d.conversation_id
         LEFT JOIN messaging_leads l ON l.conversation_id = d.conversation_id
        WHERE pg_try_advisory_xact_lock($3, hashtext(d.conversation_id::text))`,
      [now, batchSize, LOCK_NAMESPACE],
    );
    return rows;
  },

  /** Counts an attempt of each message; the caller commits it on its own, before the work starts. */
  async countAttempts(db: Queryable, ids: readonly string[]): Promise<void> {
    await db.query('UPDATE messaging_messages SET attempts = attempts + 1 WHERE id = ANY($1::uuid[])', [ids]);
  },

  /**
   * Records a failed attempt of a message still queued: due again at `nextAttemptAt`, or dead-lettered
   * (`dead`), with the error kept for diagnosis.
   */
  async recordFailure(
    db: Queryable,
    id: string,
    failure: { dead: boolean; nextAttemptAt: Date | null; error: string },
  ): Promise<void> {
    await db.query(
      `UPDATE messaging_messages SET processing_status = $2, next_attempt_at = $3, last_error = $4
        WHERE id = $1 AND processing_status = 'queued'`,
      [id, failure.dead ? 'dead' : 'queued', failure.nextAttemptAt, failure.error],
    );
  },

  /** How deep the queue is, for the metrics. */
  async depth(db: Queryable): Promise<QueueDepth | undefined> {
    const { rows } = await db.query<QueueDepth>(
      `SELECT count(*) FILTER (WHERE processing_status = 'queued')::int AS queued,
              count(*) FILTER (WHERE processing_status = 'dead')::int AS dead,
              extract(epoch FROM now() - min(created_at) FILTER (WHERE processing_status = 'queued'))::float8 AS oldest
         FROM messaging_messages WHERE processing_status IN ('queued', 'dead')`,
    );
    return rows[0];
  },

  /** Messages queued and dead-lettered, and replies that failed for good, for the health report. */
  async health(db: Queryable): Promise<{ queued: number; dead: number; failed: number } | undefined> {
    const { rows } = await db.query<{ queued: number; dead: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE processing_status = 'queued')::int AS queued,
              count(*) FILTER (WHERE processing_status = 'dead')::int AS dead,
              count(*) FILTER (WHERE delivery_status = 'failed')::int AS failed
         FROM messaging_messages
        WHERE processing_status IN ('queued', 'dead') OR delivery_status = 'failed'`,
    );
    return rows[0];
  },
};
