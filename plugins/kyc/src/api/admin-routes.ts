import type { Request } from 'express';
import { z } from 'zod';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { DECISIONS } from '../domain/state-machine.ts';
import type { KycEnv } from '../config.ts';
import type { KeyAuthenticator } from '../service/api-keys.ts';
import { keyView, tenantView, type Actor, type TenantService } from '../service/tenants.ts';
import type { VerificationService } from '../service/verifications.ts';
import { requireKycAdmin } from './staff.ts';

const id = z.object({ id: z.uuid({ error: 'must be an id' }) });
const webhookUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

export const TenantCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  sandbox: z.boolean().default(false),
  quotaLimit: z.int().min(0).max(100_000_000).default(0),
  quotaPeriod: z.enum(['day', 'month', 'lifetime']).default('month'),
  webhookUrl: webhookUrl.nullable().default(null),
});

const TenantUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    quotaLimit: z.int().min(0).max(100_000_000).optional(),
    quotaPeriod: z.enum(['day', 'month', 'lifetime']).optional(),
    webhookUrl: webhookUrl.nullable().optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, { error: 'nothing to change' });

const KeyCreateSchema = z.strictObject({
  label: z.string().trim().min(1).max(200).nullable().default(null),
  expiresAt: z.iso.datetime({ offset: true }).nullable().default(null),
});

const DecisionSchema = z.strictObject({
  decision: z.enum(DECISIONS),
  reason: z.string().trim().min(1).max(1000),
});

/**
 * The staff API for KYC (issue 5, points 1 and 3): tenants, keys and reviewer decisions. Gated by the
 * two-layer API gate, sensitive (every call is audited with the caller), and limited to `kyc:admin` or
 * the wildcard admin role.
 */
export function registerAdminRoutes(
  ctx: PluginContext<KycEnv>,
  deps: { tenants: TenantService; verifications: VerificationService; keys: KeyAuthenticator },
): void {
  // Staff authentication runs before validation, like the tenant routes' API key.
  const staff = new WeakMap<Request, Actor>();
  const authenticate = async (req: Request) => {
    const identity = await requireKycAdmin(ctx, req);
    staff.set(req, { actor: identity.sub, requestId: req.gatehouse.id, ip: req.ip ?? null });
  };
  const actor = (req: Request): Actor => staff.get(req) as Actor;

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/tenants',
    sensitive: true,
    authenticate,
    schema: { body: TenantCreateSchema },
    handler: async (req, res, { body }) => {
      const { tenant, webhookSecret } = await deps.tenants.create(body, actor(req));
      res.status(201).json({ ...tenantView(tenant), ...(webhookSecret ? { webhookSecret } : {}) });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/kyc/tenants',
    sensitive: true,
    authenticate,
    handler: async (_req, res) => {
      res.json({ tenants: (await deps.tenants.list()).map(tenantView) });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/kyc/tenants/:id',
    sensitive: true,
    authenticate,
    schema: { params: id },
    handler: async (_req, res, { params }) => {
      const tenant = await deps.tenants.get(params.id);
      res.json({ ...tenantView(tenant), usage: await deps.tenants.usage(params.id) });
    },
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/admin/kyc/tenants/:id',
    sensitive: true,
    authenticate,
    schema: { params: id, body: TenantUpdateSchema },
    handler: async (req, res, { params, body }) => {
      const { tenant, webhookSecret } = await deps.tenants.update(params.id, body, actor(req));
      deps.keys.forget({ tenantId: params.id });
      res.json({ ...tenantView(tenant), ...(webhookSecret ? { webhookSecret } : {}) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/tenants/:id/keys',
    sensitive: true,
    authenticate,
    schema: { params: id, body: KeyCreateSchema },
    handler: async (req, res, { params, body }) => {
      const { key, row } = await deps.tenants.createKey(
        params.id,
        { label: body.label, expiresAt: body.expiresAt ? new Date(body.expiresAt) : null },
        actor(req),
      );
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json({ ...keyView(row), key });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/kyc/tenants/:id/keys',
    sensitive: true,
    authenticate,
    schema: { params: id },
    handler: async (_req, res, { params }) => {
      res.json({ keys: (await deps.tenants.listKeys(params.id)).map(keyView) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/keys/:id/revoke',
    sensitive: true,
    authenticate,
    schema: { params: id },
    handler: async (req, res, { params }) => {
      const row = await deps.tenants.revokeKey(params.id, actor(req));
      deps.keys.forget({ keyId: params.id });
      res.json(keyView(row));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/verifications/:id/decision',
    sensitive: true,
    authenticate,
    schema: { params: id, body: DecisionSchema },
    handler: async (req, res, { params, body }) => {
      const who = actor(req);
      const view = await deps.verifications.decide(params.id, body.decision, {
        reason: body.reason,
        actor: `reviewer:${who.actor}`,
      });
      ctx.audit.writeLater({
        kind: 'kyc.verification.decided',
        actor: who.actor,
        requestId: who.requestId ?? null,
        ip: who.ip ?? null,
        payload: { verificationId: params.id, decision: body.decision },
      });
      res.json(view);
    },
  });
}
