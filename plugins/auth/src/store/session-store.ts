import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** Postgres channel on which every revoked session id is announced, to every replica. */
export const REVOKED_CHANNEL = 'auth_session_revoked';

/**
 * Server-side sessions (migrations/auth/0001; README, "Web sessions"). Revocations NOTIFY in the same
 * statement, so every replica hears of them when the transaction commits, and not before.
 */
export const sessionStore = {
  async create(
    db: Queryable,
    session: {
      userId: string;
      ttlSeconds: number;
      userAgent: string | null;
      ip: string | null;
      now: Date;
      /** The session starts with a second factor proven (README, "Second factors"). */
      factorVerified?: boolean;
    },
  ): Promise<{ id: string; expiresAt: Date }> {
    // 256 bits from the CSPRNG: the id is a bearer secret inside the token.
    const id = randomBytes(32).toString('base64url');
    const expiresAt = new Date(session.now.getTime() + session.ttlSeconds * 1000);
    await db.query(
      `INSERT INTO auth_sessions (id, user_id, created_at, last_seen_at, expires_at, user_agent, ip, factor_verified_at)
       VALUES ($1, $2, $3, $3, $4, $5, $6, CASE WHEN $7 THEN $3::timestamptz END)`,
      [
        id,
        session.userId,
        session.now,
        expiresAt,
        session.userAgent,
        session.ip,
        session.factorVerified === true,
      ],
    );
    return { id, expiresAt };
  },

  async revoke(db: Queryable, id: string, reason: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `WITH revoked AS (
         UPDATE auth_sessions SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id
       ) SELECT pg_notify('${REVOKED_CHANNEL}', id) FROM revoked`,
      [id, reason],
    );
    return (rowCount ?? 0) > 0;
  },

  /** Revokes every live session of a user except `keep` (a password change keeps the session that made it). */
  async revokeAllForUser(
    db: Queryable,
    userId: string,
    reason: string,
    keep: string | null = null,
  ): Promise<number> {
    const { rowCount } = await db.query(
      `WITH revoked AS (
         UPDATE auth_sessions SET revoked_at = now(), revoked_reason = $2
          WHERE user_id = $1 AND revoked_at IS NULL AND id IS DISTINCT FROM $3 RETURNING id
       ) SELECT pg_notify('${REVOKED_CHANNEL}', id) FROM revoked`,
      [userId, reason, keep],
    );
    return rowCount ?? 0;
  },

  /** Revoked sessions whose tokens have not expired yet: what the gate must still refuse. */
  async revokedAndLive(db: Queryable, now: Date): Promise<Array<{ id: string; expiresAt: Date }>> {
    const { rows } = await db.query<{ id: string; expiresAt: Date }>(
      'SELECT id, expires_at AS "expiresAt" FROM auth_sessions WHERE revoked_at IS NOT NULL AND expires_at > $1',
      [now],
    );
    return rows;
  },
};
