import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface StoredResponse {
  requestHash: Buffer;
  status: number | null;
  body: unknown;
}

/** kyc_idempotency_keys (migrations/kyc/0002): Idempotency-Key on initiate, kept 24 h. */
export const idempotencyStore = {
  /**
   * Claims a key for this request inside the caller's transaction. True: the key is new (or its previous
   * use expired) and this request owns it. False: it is taken; read it with `find`. A concurrent request
   * with the same key waits here on the unique index until the owner commits or rolls back.
   */
  async claim(
    db: Queryable,
    claim: { tenantId: string; key: string; requestHash: Buffer; now: Date; expiresAt: Date },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO kyc_idempotency_keys AS k (tenant_id, key, request_hash, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, response_status = NULL, response_body = NULL,
             created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE k.expires_at <= $4
       RETURNING 1`,
      [claim.tenantId, claim.key, claim.requestHash, claim.now, claim.expiresAt],
    );
    return rowCount === 1;
  },

  async find(db: Queryable, tenantId: string, key: string): Promise<StoredResponse | null> {
    const { rows } = await db.query<StoredResponse>(
      `SELECT request_hash AS "requestHash", response_status AS status, response_body AS body
         FROM kyc_idempotency_keys WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key],
    );
    return rows[0] ?? null;
  },

  async complete(db: Queryable, tenantId: string, key: string, status: number, body: unknown): Promise<void> {
    await db.query(
      `UPDATE kyc_idempotency_keys SET response_status = $3, response_body = $4 WHERE tenant_id = $1 AND key = $2`,
      [tenantId, key, status, JSON.stringify(body)],
    );
  },

  async sweep(db: Queryable, now: Date): Promise<number> {
    const { rowCount } = await db.query('DELETE FROM kyc_idempotency_keys WHERE expires_at <= $1', [now]);
    return rowCount ?? 0;
  },
};
