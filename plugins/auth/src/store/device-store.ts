import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface DeviceInfo {
  id: string;
  name: string | null;
  platform: string | null;
}

export interface DeviceSession {
  /** The session row's id: the `sid` of its access tokens, and the id the device list shows. */
  id: string;
  device: DeviceInfo;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/**
 * Device sign-ins (migrations/auth/0005; README, "Device tokens"): a session row of kind 'device' per sign-in
 * (the token family), and its refresh tokens, stored as SHA-256.
 */
export const deviceStore = {
  async createFamily(
    db: Queryable,
    family: {
      userId: string;
      device: DeviceInfo;
      now: Date;
      expiresAt: Date;
      userAgent: string | null;
      ip: string | null;
    },
  ): Promise<string> {
    // 256 bits from the CSPRNG, as web sessions: the id is a bearer secret inside the access token.
    const id = randomBytes(32).toString('base64url');
    await db.query(
      `INSERT INTO auth_sessions (id, user_id, created_at, last_seen_at, expires_at, user_agent, ip, kind,
                                  device_id, device_name, device_platform)
       VALUES ($1, $2, $3, $3, $4, $5, $6, 'device', $7, $8, $9)`,
      [
        id,
        family.userId,
        family.now,
        family.expiresAt,
        family.userAgent,
        family.ip,
        family.device.id,
        family.device.name,
        family.device.platform,
      ],
    );
    return id;
  },

  async addRefreshToken(
    db: Queryable,
    token: { hash: Buffer; sessionId: string; now: Date; expiresAt: Date },
  ): Promise<void> {
    await db.query(
      'INSERT INTO auth_refresh_tokens (token_hash, session_id, issued_at, expires_at) VALUES ($1, $2, $3, $4)',
      [token.hash, token.sessionId, token.now, token.expiresAt],
    );
  },

  /**
   * Spends an unspent, unexpired refresh token; its family's id, or null. Concurrent spends of one token: the
   * row lock makes them take turns, and only the first finds it unspent.
   */
  async spend(db: Queryable, hash: Buffer, now: Date): Promise<string | null> {
    const { rows } = await db.query<{ sessionId: string }>(
      `UPDATE auth_refresh_tokens SET spent_at = $2
        WHERE token_hash = $1 AND spent_at IS NULL AND expires_at > $2 RETURNING session_id AS "sessionId"`,
      [hash, now],
    );
    return rows[0]?.sessionId ?? null;
  },

  /** The family of a token spent before: what a reuse revokes. */
  async spentFamily(db: Queryable, hash: Buffer): Promise<string | null> {
    const { rows } = await db.query<{ sessionId: string }>(
      'SELECT session_id AS "sessionId" FROM auth_refresh_tokens WHERE token_hash = $1 AND spent_at IS NOT NULL',
      [hash],
    );
    return rows[0]?.sessionId ?? null;
  },

  /** Moves a live family's horizon; its account's id, or null when the family is revoked or expired. */
  async extend(db: Queryable, sessionId: string, now: Date, expiresAt: Date): Promise<string | null> {
    const { rows } = await db.query<{ userId: string }>(
      `UPDATE auth_sessions SET expires_at = $3, last_seen_at = $2
        WHERE id = $1 AND kind = 'device' AND revoked_at IS NULL AND expires_at > $2 RETURNING user_id AS "userId"`,
      [sessionId, now, expiresAt],
    );
    return rows[0]?.userId ?? null;
  },

  /** The account's live device sign-ins, newest first. */
  async list(db: Queryable, userId: string, now: Date): Promise<DeviceSession[]> {
    const { rows } = await db.query<
      DeviceSession & { deviceId: string; deviceName: string | null; platform: string | null }
    >(
      `SELECT id, device_id AS "deviceId", device_name AS "deviceName", device_platform AS platform,
              created_at AS "createdAt", last_seen_at AS "lastSeenAt", expires_at AS "expiresAt"
         FROM auth_sessions
        WHERE user_id = $1 AND kind = 'device' AND revoked_at IS NULL AND expires_at > $2
        ORDER BY created_at DESC, id`,
      [userId, now],
    );
    return rows.map(({ deviceId, deviceName, platform, ...row }) => ({
      ...row,
      device: { id: deviceId, name: deviceName, platform },
    }));
  },

  /** Whether `sessionId` is a live device sign-in of the account (a user revokes only their own). */
  async owns(db: Queryable, userId: string, sessionId: string): Promise<boolean> {
    const { rows } = await db.query(
      "SELECT 1 FROM auth_sessions WHERE id = $1 AND user_id = $2 AND kind = 'device' AND revoked_at IS NULL",
      [sessionId, userId],
    );
    return rows.length > 0;
  },
};
