import { randomBytes } from 'node:crypto';
import type { AuditWriter, Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { auditRecord, type Actor } from '../domain/actor.ts';
import { periodOf, type QuotaPeriod } from '../domain/quota-period.ts';
import { kycErrors } from '../errors.ts';
import { keyStore, type ApiKeyRow } from '../store/key-store.ts';
import { quotaStore } from '../store/quota-store.ts';
import { tenantStore, type TenantRow } from '../store/tenant-store.ts';
import { verificationStore } from '../store/verification-store.ts';
import type { WebhookTargets } from '../webhooks/webhook-targets.ts';

export interface NewTenant {
  name: string;
  sandbox: boolean;
  quotaLimit: number;
  quotaPeriod: QuotaPeriod;
  webhookUrl: string | null;
}

export interface TenantChanges {
  name?: string;
  quotaLimit?: number;
  quotaPeriod?: QuotaPeriod;
  webhookUrl?: string | null;
}

/** What tenant and key management work with. */
export interface TenantDeps {
  db: Database;
  clock: Clock;
  audit: Pick<AuditWriter, 'write'>;
  /** Where webhook URLs may point (webhooks/webhook-targets.ts); checked before anything is written. */
  webhookTargets: Pick<WebhookTargets, 'checkUrl'>;
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

/** The tenant with this id; 404 `kyc.tenant.not_found` when there is none. */
export async function findTenant(deps: Pick<TenantDeps, 'db'>, id: string): Promise<TenantRow> {
  const tenant = await tenantStore.findById(deps.db.pool, id);
  if (!tenant) throw kycErrors.create('kyc.tenant.not_found');
  return tenant;
}

/** A new tenant; with a webhook URL, its signing secret too (answered once, never shown again). */
export async function createTenant(deps: TenantDeps, input: NewTenant, who: Actor) {
  if (input.webhookUrl) await deps.webhookTargets.checkUrl(input.webhookUrl);
  const webhookSecret = input.webhookUrl ? newWebhookSecret() : null;
  const tenant = await tenantStore.insert(
    deps.db.pool,
    { ...input, provider: input.sandbox ? 'sandbox' : 'manual', webhookSecret },
    deps.clock.now(),
  );
  await deps.audit.write(
    auditRecord(who, 'kyc.tenant.created', {
      tenantId: tenant.id,
      name: tenant.name,
      sandbox: tenant.sandbox,
      quotaLimit: tenant.quotaLimit,
      quotaPeriod: tenant.quotaPeriod,
    }),
  );
  return { tenant, webhookSecret };
}

/**
 * Changes a tenant; setting the webhook URL issues a new secret. Every replica's key cache drops the
 * tenant's keys when the change commits, so requests see the tenant as it is now.
 */
export async function updateTenant(deps: TenantDeps, id: string, changes: TenantChanges, who: Actor) {
  if (changes.webhookUrl) await deps.webhookTargets.checkUrl(changes.webhookUrl);
  const webhookSecret = changes.webhookUrl ? newWebhookSecret() : null;
  const tenant = await deps.db.transaction(async (tx) => {
    const updated = await tenantStore.update(
      tx,
      id,
      {
        ...changes,
        ...('webhookUrl' in changes ? { webhookUrl: changes.webhookUrl ?? null, webhookSecret } : {}),
      },
      deps.clock.now(),
    );
    if (!updated) throw kycErrors.create('kyc.tenant.not_found');
    await keyStore.notifyChange(tx, { tenantId: id });
    return updated;
  });
  await deps.audit.write(
    auditRecord(who, 'kyc.tenant.updated', { tenantId: id, changed: Object.keys(changes) }),
  );
  return { tenant, webhookSecret };
}

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
