import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** The facts the staff scope is built from (domain/staff-scope.ts). */
export const staffScopeStore = {
  /** The clusters `userId` is a member of. */
  async clustersOf(db: Queryable, userId: string): Promise<string[]> {
    const { rows } = await db.query<{ cluster_id: string }>(
      'SELECT cluster_id FROM messaging_cluster_members WHERE user_id = $1 ORDER BY cluster_id',
      [userId],
    );
    return rows.map((row) => row.cluster_id);
  },

  /** Whether `userId` is a member of `clusterId`. */
  async isMember(db: Queryable, clusterId: string, userId: string): Promise<boolean> {
    const { rowCount } = await db.query(
      'SELECT 1 FROM messaging_cluster_members WHERE cluster_id = $1 AND user_id = $2',
      [clusterId, userId],
    );
    return rowCount === 1;
  },
};
