import type { OutboxReply } from '../domain/outbound-reply.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * The outbox: replies are outbound rows of `messaging_messages` in `delivery_status = 'pending'` until the
 * send API accepts them (`sent`) or they run out of attempts (`failed`). A reply is held by a lease
 * (`next_send_at` in the future) rather than by a transaction, so no transaction stays open across a send.
 * The effects store writes the replies; this store claims them and records what sending them did.
 */
export const outboxStore = {
  /**
   * Leases up to `limit` replies due at `now` until `leaseUntil` and counts their attempt: only the first
   * pending reply of each conversation (its replies go out in order), skipping rows another worker is
   * claiming at the same moment.
   */
  async claim(db: Queryable, now: Date, limit: number, leaseUntil: Date): Promise<OutboxReply[]> {
    const { rows } = await db.query<OutboxReply>(
      `WITH due AS (
         SELECT m.id FROM messaging_messages m
          WHERE m.delivery_status = 'pending' AND m.next_send_at <= $1
            AND NOT EXISTS (
              SELECT 1 FROM messaging_messages e
               WHERE e.conversation_id = m.conversation_id AND e.delivery_status = 'pending' AND e.seq < m.seq)
          ORDER BY m.next_send_at, m.seq
          LIMIT $2
          FOR UPDATE OF m SKIP LOCKED
       )
       UPDATE messaging_messages m
          SET send_attempts = m.send_attempts + 1, next_send_at = $3
         FROM due, messaging_conversations c
        WHERE m.id = due.id AND c.id = m.conversation_id
       RETURNING m.id, c.phone_number_id AS "phoneNumberId", m.payload, m.send_attempts AS "sendAttempts"`,
      [now, limit, leaseUntil],
    );
    return rows;
  },

  /** Marks replies the send API accepted as `sent`, with the message id it answered, in one statement. */
  async markSent(db: Queryable, sent: ReadonlyArray<{ id: string; providerId: string }>): Promise<void> {
    await db.query(
      `UPDATE messaging_messages m
          SET delivery_status = 'sent', provider_message_id = u.provider_id, next_send_at = NULL, delivery_error = NULL
         FROM unnest($1::uuid[], $2::text[]) AS u(id, provider_id)
        WHERE m.id = u.id AND m.delivery_status = 'pending'`,
      [sent.map((reply) => reply.id), sent.map((reply) => reply.providerId)],
    );
  },

  /** Records a failed send: due again at `nextSendAt`, or `failed` for good, with the error kept. */
  async recordFailure(
    db: Queryable,
    id: string,
    failure: { failed: boolean; nextSendAt: Date | null; error: string },
  ): Promise<void> {
    await db.query(
      `UPDATE messaging_messages SET delivery_status = $2, next_send_at = $3, delivery_error = $4
        WHERE id = $1 AND delivery_status = 'pending'`,
      [id, failure.failed ? 'failed' : 'pending', failure.nextSendAt, failure.error],
    );
  },

  /** Gives leased replies back to the claim, due at `now`, their lease and its counted attempt undone. */
  async release(db: Queryable, ids: readonly string[], now: Date): Promise<void> {
    await db.query(
      `UPDATE messaging_messages SET send_attempts = send_attempts - 1, next_send_at = $2
        WHERE id = ANY($1::uuid[]) AND delivery_status = 'pending'`,
      [ids, now],
    );
  },
};
