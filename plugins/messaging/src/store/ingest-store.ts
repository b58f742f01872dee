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
  /** The conversation of a sender, created on first contact. */
  async conversationFor(db: Queryable, message: InboundMessage, now: Date): Promise<string> {
    const contactKey = message.from !== null ? `wa:${message.from}` : `user:${message.fromUserId}`;
    const find = () =>
      db.query<{ id: string }>(
        'SELECT id FROM messaging_conversations WHERE phone_number_id = $1 AND contact_key = $2',
        [message.phoneNumberId, contactKey],
      );
    const existing = await find();
    if (existing.rows[0]) return existing.rows[0].id;
    const inserted = await db.query<{ id: string }>(
      `INSERT INTO messaging_conversations
         (phone_number_id, contact_key, contact_phone, contact_user_id, contact_name, cluster_id, capture,
          created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5,
               (SELECT id FROM messaging_clusters WHERE phone_number_id = $1), $6, $7, $7)
       ON CONFLICT (phone_number_id, contact_key) DO NOTHING
       RETURNING id`,
      [
        message.phoneNumberId,
        contactKey,
        message.from,
        message.fromUserId,
        message.contactName,
        JSON.stringify(IDLE_CAPTURE),
        now,
      ],
    );
    if (inserted.rows[0]) return inserted.rows[0].id;
    // Another request created it a moment ago (it committed while we waited on the unique index).
    const raced = await find();
    if (!raced.rows[0]) throw new Error('conversation vanished while being created');
    return raced.rows[0].id;
  },

  /** Stores one inbound message as queued; false when the provider message id is already known. */
  async insertInbound(
    db: Queryable,
    conversationId: string,
    message: InboundMessage,
    now: Date,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO messaging_messages
         (conversation_id, direction, provider_message_id, type, text, payload, provider_timestamp, created_at,
          processing_status, next_attempt_at)
       VALUES ($1, 'inbound', $2, $3, $4, $5, $6, $7, 'queued', $7)
       ON CONFLICT (provider_message_id) DO NOTHING`,
      [
        conversationId,
        message.providerMessageId,
        message.type,
        message.text,
        JSON.stringify({ message: message.raw, contact: { name: message.contactName } }),
        message.timestamp,
        now,
      ],
    );
    return rowCount === 1;
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
