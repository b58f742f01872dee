import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** A password sign-in waiting for its second factor (migrations/auth/0007). */
export interface PendingSignIn {
  tokenHash: Buffer;
  userId: string;
  method: 'password' | 'ldap';
  enroll: boolean;
  breakGlass: boolean;
  expiresAt: Date;
}

const COLUMNS = `token_hash AS "tokenHash", user_id AS "userId", method, enroll, break_glass AS "breakGlass",
  expires_at AS "expiresAt"`;

export const pendingSignInStore = {
  async create(
    db: Queryable,
    row: Omit<PendingSignIn, 'expiresAt'> & { now: Date; ttlSeconds: number },
  ): Promise<Date> {
    const expiresAt = new Date(row.now.getTime() + row.ttlSeconds * 1000);
    await db.query(
      `INSERT INTO auth_pending_sign_ins (token_hash, user_id, method, enroll, break_glass, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [row.tokenHash, row.userId, row.method, row.enroll, row.breakGlass, row.now, expiresAt],
    );
    return expiresAt;
  },

  /** The live pending sign-in of a token, without using it up. */
  async find(db: Queryable, tokenHash: Buffer, now: Date): Promise<PendingSignIn | null> {
    const { rows } = await db.query<PendingSignIn>(
      `SELECT ${COLUMNS} FROM auth_pending_sign_ins WHERE token_hash = $1 AND expires_at > $2`,
      [tokenHash, now],
    );
    return rows[0] ?? null;
  },

  /** Uses it up (in the transaction that issues the session): false when it was already used or has expired. */
  async consume(db: Queryable, tokenHash: Buffer, now: Date): Promise<boolean> {
    const { rowCount } = await db.query(
      'DELETE FROM auth_pending_sign_ins WHERE token_hash = $1 AND expires_at > $2',
      [tokenHash, now],
    );
    return (rowCount ?? 0) > 0;
  },

  /** Counts a wrong code; at `maxAttempts` the pending sign-in is gone and the sign-in starts again. */
  async recordFailure(db: Queryable, tokenHash: Buffer, maxAttempts: number): Promise<void> {
    // Two statements: one statement cannot both update a row and delete the version it made.
    const { rows } = await db.query<{ attempts: number }>(
      'UPDATE auth_pending_sign_ins SET attempts = attempts + 1 WHERE token_hash = $1 RETURNING attempts',
      [tokenHash],
    );
    if ((rows[0]?.attempts ?? 0) >= maxAttempts)
      await db.query('DELETE FROM auth_pending_sign_ins WHERE token_hash = $1', [tokenHash]);
  },

  /** Sign-ins abandoned at the second step. */
  async sweep(db: Queryable, now: Date): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_pending_sign_ins WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  },
};
