import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** kyc_rate_windows (migrations/kyc/0001): per API key and fixed window, the tokens all replicas leased. */
export const rateWindowStore = {
  /**
   * Leases up to `want` tokens of a key's window in one atomic upsert that never takes the window's total
   * past `limit`. Answers how many this lease got (`granted`, possibly 0) and the window's new total.
   */
  async lease(
    db: Queryable,
    lease: { keyId: string; windowStart: Date; want: number; limit: number },
  ): Promise<{ leased: number; granted: number }> {
    const { rows } = await db.query<{ leased: number; last_grant: number }>(
      `INSERT INTO kyc_rate_windows AS w (key_id, window_start, leased, last_grant)
       VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int))
       ON CONFLICT (key_id, window_start) DO UPDATE
         SET leased = LEAST(w.leased + $3::int, $4::int),
             last_grant = LEAST(w.leased + $3::int, $4::int) - w.leased
       RETURNING leased, last_grant`,
      [lease.keyId, lease.windowStart, lease.want, lease.limit],
    );
    const row = rows[0] as { leased: number; last_grant: number };
    return { leased: row.leased, granted: row.last_grant };
  },

  /** Deletes the windows that started before `before`. */
  async sweep(db: Queryable, before: Date): Promise<void> {
    await db.query('DELETE FROM kyc_rate_windows WHERE window_start < $1', [before]);
  },
};
