import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** An account's TOTP enrollment (migrations/auth/0007): the sealed secret and the replay guard. */
export interface TotpRow {
  keyId: string;
  secretSealed: Buffer;
  confirmedAt: Date | null;
  lastStep: number | null;
}

export const totpStore = {
  async find(db: Queryable, userId: string): Promise<TotpRow | null> {
    const { rows } = await db.query<TotpRow>(
      `SELECT key_id AS "keyId", secret_sealed AS "secretSealed", confirmed_at AS "confirmedAt",
              last_step::float8 AS "lastStep"
         FROM auth_totp WHERE user_id = $1`,
      [userId],
    );
    return rows[0] ?? null;
  },

  /**
   * Starts (or restarts) an enrollment with a new secret; false when the account already has a confirmed one
   * (one enrollment per account: it must be removed first).
   */
  async begin(
    db: Queryable,
    userId: string,
    sealed: { keyId: string; secret: Buffer },
    now: Date,
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO auth_totp (user_id, key_id, secret_sealed, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id) DO UPDATE SET key_id = EXCLUDED.key_id, secret_sealed = EXCLUDED.secret_sealed,
         created_at = EXCLUDED.created_at, last_step = NULL
       WHERE auth_totp.confirmed_at IS NULL`,
      [userId, sealed.keyId, sealed.secret, now],
    );
    return (rowCount ?? 0) > 0;
  },

  /**
   * The replay guard's compare-and-set: records `step` as the newest accepted one, only if it is newer than
   * the last (README, "TOTP"). `confirm`: this is the enrollment's first code, which also confirms it. False
   * when another request got there first, or the enrollment changed.
   */
  async accept(
    db: Queryable,
    userId: string,
    step: number,
    options: { confirm: boolean; now: Date; keyId: string },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE auth_totp SET last_step = $2,
              confirmed_at = CASE WHEN $3 THEN $4 ELSE confirmed_at END
        WHERE user_id = $1 AND key_id = $5 AND (last_step IS NULL OR last_step < $2)
          AND (confirmed_at IS NULL) = $3`,
      [userId, step, options.confirm, options.now, options.keyId],
    );
    return (rowCount ?? 0) > 0;
  },

  /** Removes the enrollment (confirmed or not); true when there was one. */
  async remove(db: Queryable, userId: string, confirmedOnly = false): Promise<boolean> {
    const { rowCount } = await db.query(
      `DELETE FROM auth_totp WHERE user_id = $1 AND ($2 = false OR confirmed_at IS NOT NULL)`,
      [userId, confirmedOnly],
    );
    return (rowCount ?? 0) > 0;
  },
};
