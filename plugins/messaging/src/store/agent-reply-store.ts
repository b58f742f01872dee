import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { MESSAGE_COLUMNS, type MessageRow } from './inbox-message-store.ts';

/** Advisory-lock namespace of "a reply with this (staff member, Idempotency-Key) is being written". */
const KEY_LOCK_NAMESPACE = 0x6d7372; // 'msr'

/** Expired keys one reply deletes at most, so the cleanup never makes a reply slow. */
const PURGE_BATCH = 100;

/** What an Idempotency-Key remembers: the request it was first used for and the reply it created. */
export interface ReplyRequest {
  conversationId: string;
  requestHash: string;
  messageId: string;
}

/**
 * Agent replies (README, "Staff API", "Agent inbox"): outbound messages the staff write, queued in the
 * outbox like the bot's, and the Idempotency-Keys that make a retried request send once.
 */
export const agentReplyStore = {
  /**
   * Serialises the requests of one (staff member, key) until the caller's transaction ends (ADR 0010): the
   * second of two concurrent requests waits here, then finds the key the first one stored. A hash
   * collision between two keys only makes their requests wait for each other.
   */
  async lockKey(tx: Queryable, userId: string, key: string): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      KEY_LOCK_NAMESPACE,
      JSON.stringify([userId, key]),
    ]);
  },

  /** The request a key was used for since `since`, if any. */
  async findRequest(tx: Queryable, userId: string, key: string, since: Date): Promise<ReplyRequest | null> {
    const { rows } = await tx.query<ReplyRequest>(
      `SELECT conversation_id AS "conversationId", request_hash AS "requestHash", message_id AS "messageId"
         FROM messaging_reply_requests
        WHERE user_id = $1 AND idempotency_key = $2 AND created_at > $3`,
      [userId, key, since],
    );
    return rows[0] ?? null;
  },

  /** Remembers the key's request; a key that expired is reused for the new one. */
  async remember(
    tx: Queryable,
    request: ReplyRequest & { userId: string; key: string; at: Date },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO messaging_reply_requests (user_id, idempotency_key, conversation_id, request_hash, message_id, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_id, idempotency_key) DO UPDATE
         SET conversation_id = EXCLUDED.conversation_id, request_hash = EXCLUDED.request_hash,
             message_id = EXCLUDED.message_id, created_at = EXCLUDED.created_at`,
      [
        request.userId,
        request.key,
        request.conversationId,
        request.requestHash,
        request.messageId,
        request.at,
      ],
    );
  },

  /**
   * Forgets a bounded batch of keys older than `before`, oldest first. Keys another reply is deleting at the
   * same moment are skipped, not waited for: two replies never wait on each other here (nor deadlock).
   */
  async purgeExpired(tx: Queryable, before: Date): Promise<void> {
    await tx.query(
      `DELETE FROM messaging_reply_requests
        WHERE (user_id, idempotency_key) IN (
          SELECT user_id, idempotency_key FROM messaging_reply_requests
           WHERE created_at < $1 ORDER BY created_at LIMIT $2
           FOR UPDATE SKIP LOCKED)`,
      [before, PURGE_BATCH],
    );
  },

  /**
   * Queues the reply in the outbox, due now and not leased: the sender's claim sends it after the replies
   * of the conversation still pending (the bot's among them), in `seq` order.
   */
  async insert(
    tx: Queryable,
    reply: {
      conversationId: string;
      userId: string;
      text: string;
      payload: Record<string, unknown>;
      at: Date;
    },
  ): Promise<MessageRow> {
    const { rows } = await tx.query<MessageRow>(
      `INSERT INTO messaging_messages AS m
         (conversation_id, direction, type, text, payload, created_at, delivery_status, author_user_id,
          next_send_at, send_attempts)
       VALUES ($1, 'outbound', 'text', $2, $3, $4, 'pending', $5, $4, 0)
       RETURNING ${MESSAGE_COLUMNS}`,
      [reply.conversationId, reply.text, JSON.stringify(reply.payload), reply.at, reply.userId],
    );
    return rows[0] as MessageRow;
  },

  /**
   * The agent's reply makes the conversation theirs: the bot goes silent from now (`agent_active_at`), it
   * is assigned to them unless someone holds it already, it is open, its last activity is this reply, and
   * it is read (an agent answers what they have read).
   */
  async takeOver(
    tx: Queryable,
    conversationId: string,
    userId: string,
    text: string,
    at: Date,
  ): Promise<void> {
    await tx.query(
      `UPDATE messaging_conversations
          SET agent_active_at = $3,
              assigned_at = CASE WHEN assigned_to IS NULL THEN $3 ELSE assigned_at END,
              assigned_to = COALESCE(assigned_to, $2),
              status = 'open', resolved_at = NULL, unread_count = 0,
              last_activity_at = greatest(last_activity_at, $3), last_message_text = $4, updated_at = $3
        WHERE id = $1`,
      [conversationId, userId, at, text],
    );
  },

  /** A message of the conversation. */
  async message(tx: Queryable, conversationId: string, id: string): Promise<MessageRow | null> {
    const { rows } = await tx.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messaging_messages m WHERE m.id = $1 AND m.conversation_id = $2`,
      [id, conversationId],
    );
    return rows[0] ?? null;
  },
};
