import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** kyc_quota_usage (migrations/kyc/0001). */
export const quotaStore = {
  /**
   * Takes one unit of the period's quota, or nothing when it is used up: one upsert whose row lock makes
   * concurrent initiations wait in turn, so the count can never pass the limit. Run it in the transaction
   * that creates the verification, so a failed creation gives the unit back.
   */
  async consume(db: Queryable, tenantId: string, periodStart: Date, limit: number): Promise<boolean> {
    if (limit < 1) return false;
    const { rowCount } = await db.query(
      `INSERT INTO kyc_quota_usage AS u (tenant_id, period_start, used) VALUES ($1, $2, 1)
       ON CONFLICT (tenant_id, period_start) DO UPDATE SET used = u.used + 1 WHERE u.used < $3
       RETURNING used`,
      [tenantId, periodStart, limit],
    );
    return rowCount === 1;
  },

  async used(db: Queryable, tenantId: string, periodStart: Date): Promise<number> {
    const { rows } = await db.query<{ used: number }>(
      'SELECT used FROM kyc_quota_usage WHERE tenant_id = $1 AND period_start = $2',
      [tenantId, periodStart],
    );
    return rows[0]?.used ?? 0;
  },
};
