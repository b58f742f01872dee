import type pg from 'pg';
import type { InboundMessage, StatusUpdate } from '../webhook/notification.ts';

type Queryable = Pick<pg.PoolClient, 'query'>;

/** The session a new conversation starts with (conversation/types.ts, CaptureSession). */
export const IDLE_CAPTURE = {
  state: 'idle',
  startedAt: null,
  lastActivityAt: null,
  reasked: { name: false, email: false },
} as const;

/** Delivery states in the order they happen; a late `sent` never overwrites `read`. */
const DELIVERY_RANK = `CASE $2 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 WHEN 'failed' THEN 4 END`;
const CURRENT_RANK = `CASE delivery_status WHEN 'pending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2
  WHEN 'read' THEN 3 WHEN 'failed' THEN 4 END`;

/**
 * The webhook's writes (DECISIONS.md, "Durability", binding): every inbound message of a notification in
 * one transaction, deduplicated by the provider message id, queued for processing; status updates applied
 * to the outbound messages they concern. Nothing here takes a lock the processing worker holds, so an
 * acknowledgement never waits for a classification.
 */
export const ingestStore = {
  /**
   * Stores one inbound message as queued, creating its conversation on first contact, in one statement;
   * false when the provider message id is already known. If another request is creating the same new
   * conversation at this moment, this statement cannot see it yet (its snapshot predates that commit):
   * it then stores nothing and runs again, and the next snapshot sees the conversation.
   */
  async insertInbound(db: Queryable, message: InboundMessage, now: Date): Promise<boolean> {
    const contactKey = message.from !== null ? `wa:${message.from}` : `user:${message.fromUserId}`;
    for (let attempt = 0; attempt < 5; attempt++) {
      const { rows } = await db.query<{ conversations: number; inserted: number }>(
        `WITH existing AS (
           SELECT id FROM messaging_conversations WHERE phone_number_id = $1 AND contact_key = $2
         ), created AS (
           INSERT INTO messaging_conversations
             (phone_number_id, contact_key, contact_phone, contact_user_id, contact_name, cluster_id, capture,
              created_at, updated_at)
           SELECT $1, $2, $3, $4, $5, (SELECT id FROM messaging_clusters WHERE phone_number_id = $1), $6, $7, $7
            WHERE NOT EXISTS (SELECT 1 FROM existing)
           ON CONFLICT (phone_number_id, contact_key) DO NOTHING
           RETURNING id
         ), conversation AS (
           SELECT id FROM existing UNION ALL SELECT id FROM created
         ), inserted AS (
           INSERT INTO messaging_messages
             (conversation_id, direction, provider_message_id, type, text, payload, provider_timestamp, created_at,
              processing_status, next_attempt_at)
           SELECT id, 'inbound', $8, $9, $10, $11, $12, $7, 'queued', $7 FROM conversation
           ON CONFLICT (provider_message_id) DO NOTHING
           RETURNING id
         )
         SELECT (SELECT count(*) FROM conversation)::int AS conversations, (SELECT count(*) FROM inserted)::int AS inserted`,
        [
          message.phoneNumberId,
          contactKey,
          message.from,
          message.fromUserId,
          message.contactName,
          JSON.stringify(IDLE_CAPTURE),
          now,
          message.providerMessageId,
          message.type,
          message.text,
          JSON.stringify({ message: message.raw, contact: { name: message.contactName } }),
          message.timestamp,
        ],
      );
      const row = rows[0] as { conversations: number; inserted: number };
      if (row.conversations > 0) return row.inserted === 1;
    }
    throw new Error('could not find or create the conversation of an inbound message');
  },

  /** Applies a delivery status to the outbound message it names; unknown ids and regressions change nothing. */
  async applyStatus(db: Queryable, status: StatusUpdate): Promise<boolean> {
    if (!['sent', 'delivered', 'read', 'failed'].includes(status.status)) return false;
    const { rowCount } = await db.query(
      `UPDATE messaging_messages
          SET delivery_status = $2, delivery_error = COALESCE($3, delivery_error)
        WHERE provider_message_id = $1 AND direction = 'outbound' AND ${CURRENT_RANK} < ${DELIVERY_RANK}`,
      [status.providerMessageId, status.status, status.error],
    );
    return rowCount === 1;
  },
};
