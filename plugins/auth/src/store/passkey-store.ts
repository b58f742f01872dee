import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** A passkey as its owner sees it (never its key or its counter). */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
}

/** What an assertion is checked against: the credential's public key and its counter as last seen. */
export interface StoredCredential {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Buffer;
  signCount: number;
  transports: string[];
}

/** A credential a registration proved, about to be stored. */
export interface NewPasskey {
  userId: string;
  credentialId: string;
  publicKey: Uint8Array;
  signCount: number;
  transports: readonly string[];
  name: string;
  aaguid: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  now: Date;
}

const VIEW = `id, name, created_at AS "createdAt", last_used_at AS "lastUsedAt", backed_up AS "backedUp"`;

/** All SQL of passkeys (migrations/auth/0007). The counter only moves forward, by compare-and-set. */
export const passkeyStore = {
  /** Stores a new passkey; null when its credential id is registered already (to any account). */
  async insert(db: Queryable, row: NewPasskey): Promise<PasskeyView | null> {
    const { rows } = await db.query<PasskeyView>(
      `INSERT INTO auth_passkeys (user_id, credential_id, public_key, sign_count, transports, name, aaguid,
                                  device_type, backed_up, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (credential_id) DO NOTHING
       RETURNING ${VIEW}`,
      [
        row.userId,
        row.credentialId,
        Buffer.from(row.publicKey),
        row.signCount,
        row.transports,
        row.name,
        row.aaguid,
        row.deviceType,
        row.backedUp,
        row.now,
      ],
    );
    return rows[0] ?? null;
  },

  async list(db: Queryable, userId: string): Promise<PasskeyView[]> {
    const { rows } = await db.query<PasskeyView>(
      `SELECT ${VIEW} FROM auth_passkeys WHERE user_id = $1 ORDER BY created_at, id`,
      [userId],
    );
    return rows;
  },

  /** The account's credential ids and transports (a registration excludes them, a sign-in allows them). */
  async descriptors(db: Queryable, userId: string): Promise<Array<{ id: string; transports: string[] }>> {
    const { rows } = await db.query<{ id: string; transports: string[] }>(
      'SELECT credential_id AS id, transports FROM auth_passkeys WHERE user_id = $1 ORDER BY created_at, id',
      [userId],
    );
    return rows;
  },

  async findByCredentialId(db: Queryable, credentialId: string): Promise<StoredCredential | null> {
    const { rows } = await db.query<Omit<StoredCredential, 'signCount'> & { signCount: string }>(
      `SELECT id, user_id AS "userId", credential_id AS "credentialId", public_key AS "publicKey",
              sign_count AS "signCount", transports
         FROM auth_passkeys WHERE credential_id = $1`,
      [credentialId],
    );
    const row = rows[0];
    return row ? { ...row, signCount: Number(row.signCount) } : null;
  },

  /**
   * Records a sign-in's counter, in the transaction that issues the session: only when it is higher than the
   * stored one (or both are 0, a passkey that keeps no counter). False when another sign-in stored an equal or
   * higher value first: this one's assertion is then a replay or a clone's.
   */
  async advanceCounter(
    db: Queryable,
    id: string,
    counter: { presented: number; backedUp: boolean; now: Date },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE auth_passkeys SET sign_count = $2, backed_up = $3, last_used_at = $4
        WHERE id = $1 AND (sign_count < $2::bigint OR (sign_count = 0 AND $2::bigint = 0))`,
      [id, counter.presented, counter.backedUp, counter.now],
    );
    return (rowCount ?? 0) > 0;
  },

  async rename(db: Queryable, userId: string, id: string, name: string): Promise<PasskeyView | null> {
    const { rows } = await db.query<PasskeyView>(
      `UPDATE auth_passkeys SET name = $3 WHERE id = $2 AND user_id = $1 RETURNING ${VIEW}`,
      [userId, id, name],
    );
    return rows[0] ?? null;
  },

  async remove(db: Queryable, userId: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM auth_passkeys WHERE id = $2 AND user_id = $1', [
      userId,
      id,
    ]);
    return (rowCount ?? 0) > 0;
  },

  /** Every passkey of an account at once (the server-side factor reset). */
  async removeAll(db: Queryable, userId: string): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM auth_passkeys WHERE user_id = $1', [userId]);
    return rowCount ?? 0;
  },
};
