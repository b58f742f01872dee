import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { KEY_CHANNEL, keyChangePayload, type KeyChange } from '../domain/change-channels.ts';
import type { TenantRow } from './tenant-store.ts';

export interface ApiKeyRow {
  id: string;
  tenantId: string;
  displayPrefix: string;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A key found by its hash, with what a request needs of its tenant. */
export interface KeyWithTenant {
  keyId: string;
  keyHash: Buffer;
  expiresAt: Date | null;
  revokedAt: Date | null;
  tenant: Pick<TenantRow, 'id' | 'name' | 'sandbox' | 'provider'>;
}

const KEY_COLUMNS = `id, tenant_id AS "tenantId", display_prefix AS "displayPrefix", label,
  created_at AS "createdAt", last_used_at AS "lastUsedAt", expires_at AS "expiresAt", revoked_at AS "revokedAt"`;

/** kyc_api_keys (migrations/kyc/0001). Keys are stored as SHA-256 hashes only. */
export const keyStore = {
  async insert(
    db: Queryable,
    key: {
      tenantId: string;
      hash: Buffer;
      displayPrefix: string;
      label: string | null;
      expiresAt: Date | null;
    },
    now: Date,
  ): Promise<ApiKeyRow> {
    const { rows } = await db.query<ApiKeyRow>(
      `INSERT INTO kyc_api_keys (tenant_id, key_hash, display_prefix, label, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${KEY_COLUMNS}`,
      [key.tenantId, key.hash, key.displayPrefix, key.label, key.expiresAt, now],
    );
    return rows[0] as ApiKeyRow;
  },

  async findByHash(db: Queryable, hash: Buffer): Promise<KeyWithTenant | null> {
    const { rows } = await db.query<{
      keyId: string;
      keyHash: Buffer;
      expiresAt: Date | null;
      revokedAt: Date | null;
      tenantId: string;
      name: string;
      sandbox: boolean;
      provider: string;
    }>(
      `SELECT k.id AS "keyId", k.key_hash AS "keyHash", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
              t.id AS "tenantId", t.name, t.sandbox, t.provider
         FROM kyc_api_keys k JOIN kyc_tenants t ON t.id = k.tenant_id
        WHERE k.key_hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      keyId: row.keyId,
      keyHash: row.keyHash,
      expiresAt: row.expiresAt,
      revokedAt: row.revokedAt,
      tenant: { id: row.tenantId, name: row.name, sandbox: row.sandbox, provider: row.provider },
    };
  },

  async listForTenant(db: Queryable, tenantId: string): Promise<ApiKeyRow[]> {
    const { rows } = await db.query<ApiKeyRow>(
      `SELECT ${KEY_COLUMNS} FROM kyc_api_keys WHERE tenant_id = $1 ORDER BY created_at, id`,
      [tenantId],
    );
    return rows;
  },

  /** Revokes a key (idempotent: the first revocation time stays). Null for an unknown key. */
  async revoke(db: Queryable, id: string, now: Date): Promise<ApiKeyRow | null> {
    const { rows } = await db.query<ApiKeyRow>(
      `UPDATE kyc_api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING ${KEY_COLUMNS}`,
      [id, now],
    );
    return rows[0] ?? null;
  },

  /** Records use of many keys at once (the authenticator batches it). */
  async touch(db: Queryable, ids: readonly string[], now: Date): Promise<void> {
    if (ids.length === 0) return;
    await db.query(
      `UPDATE kyc_api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, $2), $2) WHERE id = ANY($1::uuid[])`,
      [ids, now],
    );
  },

  /** Tells every replica to drop a cached key or tenant; run it inside the changing transaction. */
  async notifyChange(db: Queryable, target: KeyChange): Promise<void> {
    await db.query(`SELECT pg_notify('${KEY_CHANNEL}', $1)`, [keyChangePayload(target)]);
  },
};
