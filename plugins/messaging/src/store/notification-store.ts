import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/**
 * messaging_notifications (migrations/messaging/0001): the 30-second dedup per (user, event_key) is an
 * exclusion constraint, so concurrent inserts for the same pair persist exactly one row, whichever
 * transaction commits first; the others insert nothing.
 */
export const notificationStore = {
  /** Notifies the recipients of `scopes` for a conversation; returns the user ids that got a new row. */
  async notify(
    db: Queryable,
    n: {
      conversationId: string;
      scopes: ReadonlyArray<'cluster' | 'global'>;
      eventKey: string;
      kind: string;
      payload: Record<string, unknown>;
      at: Date;
    },
  ): Promise<string[]> {
    const { rows } = await db.query<{ user_id: string }>(
      `WITH recipients AS (
         SELECT m.user_id FROM messaging_cluster_members m
           JOIN messaging_conversations c ON c.cluster_id = m.cluster_id
          WHERE c.id = $1 AND 'cluster' = ANY($2::text[])
         UNION
         SELECT g.user_id FROM messaging_global_recipients g WHERE 'global' = ANY($2::text[])
       )
       INSERT INTO messaging_notifications (user_id, event_key, kind, conversation_id, payload, created_at)
       SELECT user_id, $3, $4, $1, $5, $6 FROM recipients
       ON CONFLICT ON CONSTRAINT messaging_notifications_dedup DO NOTHING
       RETURNING user_id`,
      [n.conversationId, n.scopes, n.eventKey, n.kind, JSON.stringify(n.payload), n.at],
    );
    return rows.map((row) => row.user_id);
  },
};
