import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface ScimTokenRow {
  id: string;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A token found by its hash: what the authentication step needs. */
export interface ScimTokenMatch {
  id: string;
  name: string;
  tokenHash: Buffer;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
}

const COLUMNS = `id, name, display_prefix AS "displayPrefix", created_at AS "createdAt",
  last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"`;

/** auth_scim_tokens (migrations/auth/0006): SCIM bearer tokens, kept as SHA-256 hashes only. */
export const scimTokenStore = {
  async insert(
    db: Queryable,
    token: { name: string; hash: Buffer; displayPrefix: string },
    now: Date,
  ): Promise<ScimTokenRow> {
    const { rows } = await db.query<ScimTokenRow>(
      `INSERT INTO auth_scim_tokens (name, token_hash, display_prefix, created_at) VALUES ($1, $2, $3, $4)
       RETURNING ${COLUMNS}`,
      [token.name, token.hash, token.displayPrefix, now],
    );
    return rows[0] as ScimTokenRow;
  },

  async findByHash(db: Queryable, hash: Buffer): Promise<ScimTokenMatch | null> {
    const { rows } = await db.query<ScimTokenMatch>(
      `SELECT id, name, token_hash AS "tokenHash", revoked_at AS "revokedAt", last_used_at AS "lastUsedAt"
         FROM auth_scim_tokens WHERE token_hash = $1`,
      [hash],
    );
    return rows[0] ?? null;
  },

  async list(db: Queryable): Promise<ScimTokenRow[]> {
    const { rows } = await db.query<ScimTokenRow>(
      `SELECT ${COLUMNS} FROM auth_scim_tokens ORDER BY created_at, id`,
    );
    return rows;
  },

  /** Revokes a token (idempotent: the first revocation time stays). Null for an unknown id. */
  async revoke(db: Queryable, id: string, now: Date): Promise<ScimTokenRow | null> {
    const { rows } = await db.query<ScimTokenRow>(
      `UPDATE auth_scim_tokens SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now],
    );
    return rows[0] ?? null;
  },

  async touch(db: Queryable, id: string, now: Date): Promise<void> {
    await db.query('UPDATE auth_scim_tokens SET last_used_at = $2 WHERE id = $1', [id, now]);
  },
};
