import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * What the messaging plugin's tables say about staff members and conversations, for room entitlements
 * (domain/entitlement.ts). Read-only; the tables are the messaging plugin's (migrations/messaging).
 */
export const staffStore = {
  /** Each user's clusters; users in no cluster are absent. */
  async clusters(db: Queryable, userIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const { rows } = await db.query<{ user_id: string; cluster_id: string }>(
      'SELECT user_id, cluster_id::text FROM messaging_cluster_members WHERE user_id = ANY($1::text[])',
      [userIds],
    );
    const byUser = new Map<string, Set<string>>();
    for (const row of rows) {
      const set = byUser.get(row.user_id) ?? new Set<string>();
      set.add(row.cluster_id);
      byUser.set(row.user_id, set);
    }
    return byUser;
  },

  /** Which of these users are global recipients of escalations. */
  async globalRecipients(db: Queryable, userIds: readonly string[]): Promise<Set<string>> {
    const { rows } = await db.query<{ user_id: string }>(
      'SELECT user_id FROM messaging_global_recipients WHERE user_id = ANY($1::text[])',
      [userIds],
    );
    return new Set(rows.map((row) => row.user_id));
  },

  /** Each existing conversation's cluster (null when it has none). */
  async conversationClusters(
    db: Queryable,
    conversationIds: readonly string[],
  ): Promise<Map<string, string | null>> {
    const { rows } = await db.query<{ id: string; cluster_id: string | null }>(
      'SELECT id::text, cluster_id::text FROM messaging_conversations WHERE id = ANY($1::uuid[])',
      [conversationIds],
    );
    return new Map(rows.map((row) => [row.id, row.cluster_id]));
  },
};
