import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import {
  AdminIdParamsSchema,
  KeyCreateSchema,
  TenantCreateSchema,
  TenantUpdateSchema,
} from '../domain/admin-schemas.ts';
import type { KycEnv } from '../config.ts';
import type { KeyAuthenticator } from '../service/key-authenticator.ts';
import type { TenantService } from '../service/tenant-service.ts';
import { keyView, tenantView } from '../service/tenants.ts';
import { staffAuthentication, type StaffAuthentication } from './staff-authentication.ts';

interface TenantAdminDeps {
  tenants: TenantService;
  keys: KeyAuthenticator;
}

/**
 * The staff API for tenants and their API keys (README, "For staff"). Gated by the two-layer API gate,
 * sensitive (every call is audited with the caller), and limited to `kyc:admin` or the wildcard admin role.
 */
export function registerTenantAdminRoutes(ctx: PluginContext<KycEnv>, deps: TenantAdminDeps): void {
  const staff = staffAuthentication(ctx);
  registerTenants(ctx, staff, deps);
  registerKeys(ctx, staff, deps);
}

function registerTenants(
  ctx: PluginContext<KycEnv>,
  staff: StaffAuthentication,
  deps: TenantAdminDeps,
): void {
  const { authenticate, actor } = staff;
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
    schema: { params: AdminIdParamsSchema },
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
    schema: { params: AdminIdParamsSchema, body: TenantUpdateSchema },
    handler: async (req, res, { params, body }) => {
      const { tenant, webhookSecret } = await deps.tenants.update(params.id, body, actor(req));
      deps.keys.forget({ tenantId: params.id });
      res.json({ ...tenantView(tenant), ...(webhookSecret ? { webhookSecret } : {}) });
    },
  });
}

function registerKeys(ctx: PluginContext<KycEnv>, staff: StaffAuthentication, deps: TenantAdminDeps): void {
  const { authenticate, actor } = staff;
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/tenants/:id/keys',
    sensitive: true,
    authenticate,
    schema: { params: AdminIdParamsSchema, body: KeyCreateSchema },
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
    schema: { params: AdminIdParamsSchema },
    handler: async (_req, res, { params }) => {
      res.json({ keys: (await deps.tenants.listKeys(params.id)).map(keyView) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/keys/:id/revoke',
    sensitive: true,
    authenticate,
    schema: { params: AdminIdParamsSchema },
    handler: async (req, res, { params }) => {
      const row = await deps.tenants.revokeKey(params.id, actor(req));
      deps.keys.forget({ keyId: params.id });
      res.json(keyView(row));
    },
  });
}
