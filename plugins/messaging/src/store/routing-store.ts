import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * Staff routing: clusters (a business number's team of staff), their members, and the global recipients,
 * whom the escalation notifications go to (plugins/messaging/README.md, "Staff routing (CLI until the staff
 * API arrives)").
 */
export const routingStore = {
  /** Creates a cluster; null when its name or phone number id is taken. */
  async createCluster(
    db: Queryable,
    cluster: { name: string; phoneNumberId: string | null },
    now: Date,
  ): Promise<string | null> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO messaging_clusters (name, phone_number_id, created_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING id`,
      [cluster.name, cluster.phoneNumberId, now],
    );
    return rows[0]?.id ?? null;
  },

  /** Routes the conversations of a business number that have no cluster yet to `clusterId`. */
  async routeConversations(db: Queryable, clusterId: string, phoneNumberId: string): Promise<void> {
    await db.query(
      'UPDATE messaging_conversations SET cluster_id = $1 WHERE phone_number_id = $2 AND cluster_id IS NULL',
      [clusterId, phoneNumberId],
    );
  },

  /** Adds a member to a cluster, if the cluster exists; true when the member is new. */
  async addMember(db: Queryable, clusterId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO messaging_cluster_members (cluster_id, user_id)
       SELECT id, $2 FROM messaging_clusters WHERE id = $1 ON CONFLICT DO NOTHING`,
      [clusterId, userId],
    );
    return rowCount === 1;
  },

  async clusterExists(db: Queryable, clusterId: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM messaging_clusters WHERE id = $1', [clusterId]);
    return rowCount !== 0;
  },

  /** Adds a global recipient; true when they are new. */
  async addGlobalRecipient(db: Queryable, userId: string, now: Date): Promise<boolean> {
    const { rowCount } = await db.query(
      'INSERT INTO messaging_global_recipients (user_id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [userId, now],
    );
    return rowCount === 1;
  },
};
