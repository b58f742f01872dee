import { auditRecord, type Actor } from '../domain/actor.ts';
import { generateKey } from '../domain/api-key.ts';
import { kycErrors } from '../errors.ts';
import { keyStore, type ApiKeyRow } from '../store/key-store.ts';
import { findTenant, type TenantDeps } from './tenants.ts';

/** A tenant's new API key: the key itself (shown once, never stored) and its row. */
export async function createTenantKey(
  deps: TenantDeps,
  tenantId: string,
  input: { label: string | null; expiresAt: Date | null },
  who: Actor,
): Promise<{ key: string; row: ApiKeyRow }> {
  const tenant = await findTenant(deps, tenantId);
  const fresh = generateKey(tenant.sandbox);
  const row = await keyStore.insert(
    deps.db.pool,
    {
      tenantId,
      hash: fresh.hash,
      displayPrefix: fresh.displayPrefix,
      label: input.label,
      expiresAt: input.expiresAt,
    },
    deps.clock.now(),
  );
  await deps.audit.write(
    auditRecord(who, 'api.auth.api_key_created', {
      tenantId,
      keyId: row.id,
      displayPrefix: row.displayPrefix,
      expiresAt: row.expiresAt?.toISOString() ?? null,
    }),
  );
  return { key: fresh.key, row };
}

/** A tenant's keys, without the keys themselves (only their hashes are stored). */
export async function listTenantKeys(deps: TenantDeps, tenantId: string): Promise<ApiKeyRow[]> {
  await findTenant(deps, tenantId);
  return keyStore.listForTenant(deps.db.pool, tenantId);
}

/** Revokes a key; every replica's key cache hears of it when the revocation commits. */
export async function revokeTenantKey(deps: TenantDeps, keyId: string, who: Actor): Promise<ApiKeyRow> {
  const row = await deps.db.transaction(async (tx) => {
    const revoked = await keyStore.revoke(tx, keyId, deps.clock.now());
    if (!revoked) throw kycErrors.create('kyc.api_key.not_found');
    await keyStore.notifyChange(tx, { keyId });
    return revoked;
  });
  await deps.audit.write(
    auditRecord(who, 'api.auth.api_key_revoked', {
      tenantId: row.tenantId,
      keyId: row.id,
      displayPrefix: row.displayPrefix,
    }),
  );
  return row;
}
