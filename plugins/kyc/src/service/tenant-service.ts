import type { Actor } from '../domain/actor.ts';
import { tenantStore } from '../store/tenant-store.ts';
import { createTenantKey, listTenantKeys, revokeTenantKey } from './tenant-keys.ts';
import {
  createTenant,
  findTenant,
  type NewTenant,
  type TenantChanges,
  type TenantDeps,
  updateTenant,
  usageOf,
} from './tenants.ts';

/**
 * Tenant and API-key management (README, "For staff"), shared by the admin routes and the CLI so both
 * write the same rows, audit the same events and tell every replica's key cache. Tenants are
 * tenants.ts, their keys tenant-keys.ts.
 */
export function createTenantService(deps: TenantDeps) {
  return {
    create: (input: NewTenant, who: Actor) => createTenant(deps, input, who),
    get: (id: string) => findTenant(deps, id),
    list: () => tenantStore.list(deps.db.pool),
    update: (id: string, changes: TenantChanges, who: Actor) => updateTenant(deps, id, changes, who),
    usage: async (id: string) => usageOf(deps.db, await findTenant(deps, id), deps.clock.now()),
    createKey: (tenantId: string, input: { label: string | null; expiresAt: Date | null }, who: Actor) =>
      createTenantKey(deps, tenantId, input, who),
    listKeys: (tenantId: string) => listTenantKeys(deps, tenantId),
    revokeKey: (keyId: string, who: Actor) => revokeTenantKey(deps, keyId, who),
  };
}

export type TenantService = ReturnType<typeof createTenantService>;
