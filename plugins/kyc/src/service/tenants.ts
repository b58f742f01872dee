import { randomBytes } from 'node:crypto';
import type { AuditWriter, Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { periodOf } from '../domain/quota-period.ts';
import { kycErrors } from '../errors.ts';
import { keyStore, type ApiKeyRow } from '../store/key-store.ts';
import { quotaStore } from '../store/quota-store.ts';
import { tenantStore, type QuotaPeriod, type TenantRow } from '../store/tenant-store.ts';
import { verificationStore } from '../store/verification-store.ts';
import type { WebhookTargets } from '../webhooks/webhook-targets.ts';
import { generateKey } from './api-keys.ts';

/** Who made a change, for the audit row: `cli` or the staff member's user id. */
export interface Actor {
  actor: string;
  requestId?: string | null;
  ip?: string | null;
}

export interface NewTenant {
  name: string;
  sandbox: boolean;
  quotaLimit: number;
  quotaPeriod: QuotaPeriod;
  webhookUrl: string | null;
}

/** A tenant as admins see it: never the webhook secret (it is shown once, when set). */
export function tenantView(tenant: TenantRow) {
  return {
    id: tenant.id,
    name: tenant.name,
    sandbox: tenant.sandbox,
    provider: tenant.provider,
    quota: { limit: tenant.quotaLimit, period: tenant.quotaPeriod },
    webhookUrl: tenant.webhookUrl,
    createdAt: tenant.createdAt.toISOString(),
    updatedAt: tenant.updatedAt.toISOString(),
  };
}

export function keyView(key: ApiKeyRow) {
  return {
    id: key.id,
    tenantId: key.tenantId,
    displayPrefix: key.displayPrefix,
    label: key.label,
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Tenant and API-key management (issue 5, point 1), shared by the admin routes and the CLI so both
 * write the same rows, audit the same events and tell every replica's key cache.
 */
export function createTenantService(deps: {
  db: Database;
  clock: Clock;
  audit: Pick<AuditWriter, 'write'>;
  /** Where webhook URLs may point (webhooks/webhook-targets.ts); checked before anything is written. */
  webhookTargets: Pick<WebhookTargets, 'checkUrl'>;
}) {
  const { db, clock } = deps;
  const audit = (who: Actor, kind: string, payload: Record<string, unknown>) =>
    deps.audit.write({
      kind,
      actor: who.actor,
      requestId: who.requestId ?? null,
      ip: who.ip ?? null,
      payload,
    });

  const found = async (id: string) => {
    const tenant = await tenantStore.findById(db.pool, id);
    if (!tenant) throw kycErrors.create('kyc.tenant.not_found');
    return tenant;
  };

  return {
    async create(input: NewTenant, who: Actor) {
      if (input.webhookUrl) await deps.webhookTargets.checkUrl(input.webhookUrl);
      const webhookSecret = input.webhookUrl ? newWebhookSecret() : null;
      const tenant = await tenantStore.insert(
        db.pool,
        {
          ...input,
          provider: input.sandbox ? 'sandbox' : 'manual',
          webhookSecret,
        },
        clock.now(),
      );
      await audit(who, 'kyc.tenant.created', {
        tenantId: tenant.id,
        name: tenant.name,
        sandbox: tenant.sandbox,
        quotaLimit: tenant.quotaLimit,
        quotaPeriod: tenant.quotaPeriod,
      });
      return { tenant, webhookSecret };
    },

    get: found,
    list: () => tenantStore.list(db.pool),

    async update(
      id: string,
      changes: { name?: string; quotaLimit?: number; quotaPeriod?: QuotaPeriod; webhookUrl?: string | null },
      who: Actor,
    ) {
      if (changes.webhookUrl) await deps.webhookTargets.checkUrl(changes.webhookUrl);
      const webhookSecret = changes.webhookUrl ? newWebhookSecret() : null;
      const tenant = await db.transaction(async (tx) => {
        const updated = await tenantStore.update(
          tx,
          id,
          {
            ...changes,
            ...('webhookUrl' in changes ? { webhookUrl: changes.webhookUrl ?? null, webhookSecret } : {}),
          },
          clock.now(),
        );
        if (!updated) throw kycErrors.create('kyc.tenant.not_found');
        await keyStore.notifyChange(tx, { tenantId: id });
        return updated;
      });
      await audit(who, 'kyc.tenant.updated', {
        tenantId: id,
        changed: Object.keys(changes),
      });
      return { tenant, webhookSecret };
    },

    async usage(id: string) {
      const tenant = await found(id);
      return usageOf(db, tenant, clock.now());
    },

    async createKey(tenantId: string, input: { label: string | null; expiresAt: Date | null }, who: Actor) {
      const tenant = await found(tenantId);
      const fresh = generateKey(tenant.sandbox);
      const row = await keyStore.insert(
        db.pool,
        {
          tenantId,
          hash: fresh.hash,
          displayPrefix: fresh.displayPrefix,
          label: input.label,
          expiresAt: input.expiresAt,
        },
        clock.now(),
      );
      await audit(who, 'api.auth.api_key_created', {
        tenantId,
        keyId: row.id,
        displayPrefix: row.displayPrefix,
        expiresAt: row.expiresAt?.toISOString() ?? null,
      });
      return { key: fresh.key, row };
    },

    listKeys: async (tenantId: string) => {
      await found(tenantId);
      return keyStore.listForTenant(db.pool, tenantId);
    },

    async revokeKey(keyId: string, who: Actor) {
      const row = await db.transaction(async (tx) => {
        const revoked = await keyStore.revoke(tx, keyId, clock.now());
        if (!revoked) throw kycErrors.create('kyc.api_key.not_found');
        await keyStore.notifyChange(tx, { keyId });
        return revoked;
      });
      await audit(who, 'api.auth.api_key_revoked', {
        tenantId: row.tenantId,
        keyId: row.id,
        displayPrefix: row.displayPrefix,
      });
      return row;
    },
  };
}

export type TenantService = ReturnType<typeof createTenantService>;

function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The consumption of the tenant an API key belongs to (GET /api/v1/kyc/usage). A tenant gone since the
 * key was checked makes the key invalid.
 */
export async function usageOfKeyTenant(deps: { db: Database; clock: Clock }, tenantId: string) {
  const tenant = await tenantStore.findById(deps.db.pool, tenantId);
  if (!tenant) throw kycErrors.create('kyc.api_key.invalid');
  return usageOf(deps.db, tenant, deps.clock.now());
}

/** The tenant's consumption in the current period (GET /api/v1/kyc/usage and the admin API). */
export async function usageOf(
  db: Database,
  tenant: Pick<TenantRow, 'id' | 'sandbox' | 'quotaLimit' | 'quotaPeriod'>,
  now: Date,
) {
  const period = periodOf(tenant.quotaPeriod, now);
  const [used, initiations] = await Promise.all([
    quotaStore.used(db.pool, tenant.id, period.start),
    verificationStore.countSince(db.pool, tenant.id, period.start),
  ]);
  return {
    tenantId: tenant.id,
    sandbox: tenant.sandbox,
    period: {
      kind: tenant.quotaPeriod,
      start: period.start.toISOString(),
      end: period.end?.toISOString() ?? null,
    },
    quota: { limit: tenant.quotaLimit, used, remaining: Math.max(0, tenant.quotaLimit - used) },
    initiations,
  };
}
