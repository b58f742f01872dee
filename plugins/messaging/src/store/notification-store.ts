import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface NotificationRequest {
  conversationId: string;
  /** Who: the users of the conversation's cluster, the global recipients, or both. */
  scopes: ReadonlyArray<'cluster' | 'global'>;
  eventKey: string;
  kind: string;
  payload: Record<string, unknown>;
}

/**
 * messaging_notifications (migrations/messaging/0001). The 30-second dedup per (user, event_key) is the
 * table's exclusion constraint (README, "How a message flows", point 5), so concurrent inserts for the same
 * pair persist exactly one row, whichever transaction commits first; the others insert nothing.
 */
export const notificationStore = {
  /** Notifies the recipients of each request; returns the user ids that got a new row. */
  async notifyMany(db: Queryable, requests: readonly NotificationRequest[], at: Date): Promise<string[]> {
    if (requests.length === 0) return [];
    const { rows } = await db.query<{ user_id: string }>(
      `WITH n AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::jsonb[])
                  AS n(conversation_id, scopes, event_key, kind, payload)
       ), recipients AS (
         SELECT DISTINCT ON (r.user_id, n.event_key) n.conversation_id, n.event_key, n.kind, n.payload, r.user_id
           FROM n
           JOIN LATERAL (
             SELECT m.user_id FROM messaging_cluster_members m
               JOIN messaging_conversations c ON c.cluster_id = m.cluster_id
              WHERE c.id = n.conversation_id AND 'cluster' = ANY(string_to_array(n.scopes, ','))
             UNION
             SELECT g.user_id FROM messaging_global_recipients g
              WHERE 'global' = ANY(string_to_array(n.scopes, ','))
           ) r ON true
       )
       INSERT INTO messaging_notifications (user_id, event_key, kind, conversation_id, payload, created_at)
       SELECT user_id, event_key, kind, conversation_id, payload, $6 FROM recipients
       ON CONFLICT ON CONSTRAINT messaging_notifications_dedup DO NOTHING
       RETURNING user_id`,
      [
        requests.map((r) => r.conversationId),
        requests.map((r) => r.scopes.join(',')),
        requests.map((r) => r.eventKey),
        requests.map((r) => r.kind),
        requests.map((r) => JSON.stringify(r.payload)),
        at,
      ],
    );
    return rows.map((row) => row.user_id);
  },

  notify(db: Queryable, request: NotificationRequest & { at: Date }): Promise<string[]> {
    const { at, ...rest } = request;
    return notificationStore.notifyMany(db, [rest], at);
  },
};
