import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Identities at OpenID Providers (migrations/auth/0005): (issuer, subject) → account. */
export const identityStore = {
  /** The account linked to the identity, if any. */
  async findUser(db: Queryable, issuer: string, subject: string): Promise<string | null> {
    const { rows } = await db.query<{ userId: string }>(
      'SELECT user_id AS "userId" FROM auth_identities WHERE issuer = $1 AND subject = $2',
      [issuer, subject],
    );
    return rows[0]?.userId ?? null;
  },

  /**
   * Links the identity to the account; false when either is taken — the identity already linked (a concurrent
   * first sign-in), or the account already linked to another subject of this issuer.
   */
  async link(
    db: Queryable,
    identity: { issuer: string; subject: string; userId: string; now: Date },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO auth_identities (issuer, subject, user_id, linked_at, last_sign_in_at)
       VALUES ($1, $2, $3, $4, $4) ON CONFLICT DO NOTHING`,
      [identity.issuer, identity.subject, identity.userId, identity.now],
    );
    return rowCount === 1;
  },

  async touch(db: Queryable, issuer: string, subject: string, now: Date): Promise<void> {
    await db.query('UPDATE auth_identities SET last_sign_in_at = $3 WHERE issuer = $1 AND subject = $2', [
      issuer,
      subject,
      now,
    ]);
  },
};
