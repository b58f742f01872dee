import { idleSession } from '../conversation/capture/session.ts';
import type { InboundMessage, StatusUpdate } from '../domain/webhook-notification.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** 'wa:<from>', or 'user:<from_user_id>' for a username-only user (README, "How a message flows"). */
export function contactKey(message: InboundMessage): string {
  return message.from !== null ? `wa:${message.from}` : `user:${message.fromUserId}`;
}

/** Delivery states in the order they happen; a late `sent` never overwrites `read`. */
const DELIVERY_RANK = `CASE $2 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 WHEN 'failed' THEN 4 END`;
const CURRENT_RANK = `CASE delivery_status WHEN 'pending' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2
  WHEN 'read' THEN 3 WHEN 'failed' THEN 4 END`;

/**
 * The webhook's writes (plugins/messaging/README.md, "How a message flows", point 2): every inbound message
 * of a notification in one transaction, deduplicated by the provider message id, queued for processing;
 * status updates applied to the outbound messages they concern. Nothing here takes a lock the processing
 * worker holds, so an acknowledgement never waits for a classification.
 */
export const ingestStore = {
  /**
   * Stores inbound messages as queued, creating conversations on first contact, in one statement (so
   * atomically); returns the provider ids it stored (the others were already known: redeliveries change
   * nothing). A conversation another replica is creating at this moment is invisible to this statement's
   * snapshot; its messages are then stored by running the statement again for them.
   */
  async insertInbound(db: Queryable, messages: readonly InboundMessage[], now: Date): Promise<Set<string>> {
    const stored = new Set<string>();
    let pending = [...messages];
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 5) throw new Error('could not find or create the conversation of an inbound message');
      const keyOf = (m: InboundMessage) => `${m.phoneNumberId} ${contactKey(m)}`;
      const { rows } = await db.query<{ inserted: string[]; conversations: string[] }>(
        `WITH input AS (
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                                $8::text[], $9::jsonb[], $10::timestamptz[])
             WITH ORDINALITY AS i(phone_number_id, contact_key, contact_phone, contact_user_id, contact_name,
                                  provider_message_id, type, text, payload, provider_timestamp, ord)
         ), existing AS (
           SELECT c.id, c.phone_number_id, c.contact_key FROM messaging_conversations c
            WHERE (c.phone_number_id, c.contact_key) IN (SELECT phone_number_id, contact_key FROM input)
         ), created AS (
           INSERT INTO messaging_conversations
             (phone_number_id, contact_key, contact_phone, contact_user_id, contact_name, cluster_id, capture,
              created_at, updated_at)
           SELECT DISTINCT ON (i.phone_number_id, i.contact_key)
                  i.phone_number_id, i.contact_key, i.contact_phone, i.contact_user_id, i.contact_name,
                  (SELECT k.id FROM messaging_clusters k WHERE k.phone_number_id = i.phone_number_id), $11, $12, $12
             FROM input i
            WHERE NOT EXISTS (SELECT 1 FROM existing e
                               WHERE e.phone_number_id = i.phone_number_id AND e.contact_key = i.contact_key)
            ORDER BY i.phone_number_id, i.contact_key, i.ord
           ON CONFLICT (phone_number_id, contact_key) DO NOTHING
           RETURNING id, phone_number_id, contact_key
         ), conversation AS (
           SELECT * FROM existing UNION ALL SELECT * FROM created
         ), inserted AS (
           INSERT INTO messaging_messages
             (conversation_id, direction, provider_message_id, type, text, payload, provider_timestamp, created_at,
              processing_status, next_attempt_at)
           SELECT c.id, 'inbound', i.provider_message_id, i.type, i.text, i.payload, i.provider_timestamp, $12,
                  'queued', $12
             FROM input i JOIN conversation c ON c.phone_number_id = i.phone_number_id AND c.contact_key = i.contact_key
            ORDER BY i.ord
           ON CONFLICT (provider_message_id) DO NOTHING
           RETURNING provider_message_id
         )
         SELECT ARRAY(SELECT provider_message_id FROM inserted) AS inserted,
                ARRAY(SELECT phone_number_id || ' ' || contact_key FROM conversation) AS conversations`,
        [
          pending.map((m) => m.phoneNumberId),
          pending.map(contactKey),
          pending.map((m) => m.from),
          pending.map((m) => m.fromUserId),
          pending.map((m) => m.contactName),
          pending.map((m) => m.providerMessageId),
          pending.map((m) => m.type),
          pending.map((m) => m.text),
          pending.map((m) => JSON.stringify({ message: m.raw, contact: { name: m.contactName } })),
          pending.map((m) => m.timestamp),
          // A new conversation starts with an idle capture session.
          JSON.stringify(idleSession()),
          now,
        ],
      );
      const row = rows[0] as { inserted: string[]; conversations: string[] };
      for (const id of row.inserted) stored.add(id);
      const found = new Set(row.conversations);
      pending = pending.filter((m) => !found.has(keyOf(m)));
    }
    return stored;
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
