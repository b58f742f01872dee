import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Recovery codes (migrations/auth/0007): hashes only, each used once. */
export const recoveryCodeStore = {
  /** Replaces the account's set (the old codes stop working in the same statement's transaction). */
  async replace(db: Queryable, userId: string, hashes: readonly Buffer[], now: Date): Promise<void> {
    await db.query(
      `WITH gone AS (DELETE FROM auth_recovery_codes WHERE user_id = $1)
       INSERT INTO auth_recovery_codes (user_id, code_hash, created_at)
       SELECT $1, hash, $3 FROM unnest($2::bytea[]) AS hash`,
      [userId, hashes, now],
    );
  },

  /** Uses a code: true for exactly one caller however many present it at once. */
  async use(db: Queryable, userId: string, hash: Buffer, now: Date): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE auth_recovery_codes SET used_at = $3
        WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL`,
      [userId, hash, now],
    );
    return (rowCount ?? 0) > 0;
  },

  async removeAll(db: Queryable, userId: string): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_recovery_codes WHERE user_id = $1', [userId]);
    return rowCount ?? 0;
  },
};
