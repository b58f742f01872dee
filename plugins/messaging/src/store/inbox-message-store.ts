import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** A message as the inbox shows it. */
export interface MessageRow {
  id: string;
  /** Arrival order in the conversation (a bigint, as text). */
  seq: string;
  direction: 'inbound' | 'outbound';
  type: string;
  text: string | null;
  authorUserId: string | null;
  intent: string | null;
  tier: number | null;
  deliveryStatus: 'pending' | 'sent' | 'delivered' | 'read' | 'failed' | null;
  processingStatus: 'queued' | 'processed' | 'dead' | null;
  createdAt: Date;
}

/** The columns of a `MessageRow`, read from `messaging_messages m`. */
export const MESSAGE_COLUMNS = `m.id, m.seq::text AS seq, m.direction, m.type, m.text, m.author_user_id AS "authorUserId", m.intent,
  m.tier, m.delivery_status AS "deliveryStatus", m.processing_status AS "processingStatus", m.created_at AS "createdAt"`;

/**
 * A conversation's messages for the inbox, in keyset pages over `seq` (arrival order) both ways, served by
 * the (conversation_id, seq) index. The caller has already checked the conversation is in the scope.
 */
export const inboxMessageStore = {
  /**
   * Up to `limit` messages, oldest first: the newest ones (no bound), the ones just before `before`, or
   * the ones just after `after`. `more`: further messages exist in the direction of the walk.
   */
  async page(
    db: Queryable,
    conversationId: string,
    bound: { before?: number; after?: number },
    limit: number,
  ): Promise<{ rows: MessageRow[]; more: boolean }> {
    const forward = bound.after !== undefined;
    const edge = bound.after ?? bound.before ?? null;
    const { rows } = await db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messaging_messages m
        WHERE m.conversation_id = $1 AND ($2::bigint IS NULL OR ${forward ? 'm.seq > $2' : 'm.seq < $2'})
        ORDER BY m.seq ${forward ? 'ASC' : 'DESC'}
        LIMIT $3`,
      [conversationId, edge, limit + 1],
    );
    const more = rows.length > limit;
    const page = rows.slice(0, limit);
    return { rows: forward ? page : page.reverse(), more };
  },

  /** Whether the conversation has a message older than `seq`. */
  async hasBefore(db: Queryable, conversationId: string, seq: number): Promise<boolean> {
    const { rowCount } = await db.query(
      'SELECT 1 FROM messaging_messages WHERE conversation_id = $1 AND seq < $2 LIMIT 1',
      [conversationId, seq],
    );
    return rowCount === 1;
  },
};
