import type { Request } from 'express';
import { z } from 'zod';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { requireKycAdmin } from '../api/staff.ts';
import type { KycEnv } from '../config.ts';
import type { Actor } from '../service/tenants.ts';
import type { WebhookService } from './webhook-service.ts';

const id = z.object({ id: z.uuid({ error: 'must be an id' }) });

/**
 * The staff API for webhooks (issue 5, point 7): a verification's deliveries with every attempt, and a
 * manual resend. Gated, sensitive (every call audited with the caller) and limited to `kyc:admin` or the
 * wildcard admin role, like the other KYC admin routes (../api/admin-routes.ts).
 */
export function registerWebhookRoutes(ctx: PluginContext<KycEnv>, deps: { webhooks: WebhookService }): void {
  // Staff authentication runs before validation: a caller without a session learns nothing else.
  const staff = new WeakMap<Request, Actor>();
  const authenticate = async (req: Request) => {
    const identity = await requireKycAdmin(ctx, req);
    staff.set(req, { actor: identity.sub, requestId: req.gatehouse.id, ip: req.ip ?? null });
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/kyc/verifications/:id/webhooks',
    sensitive: true,
    authenticate,
    schema: { params: id },
    handler: async (_req, res, { params }) => {
      res.json({ deliveries: await deps.webhooks.listForVerification(params.id) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/webhooks/:id/resend',
    sensitive: true,
    authenticate,
    schema: { params: id },
    handler: async (req, res, { params }) => {
      // 202: queued; the worker sends it on its next pass.
      res.status(202).json(await deps.webhooks.resend(params.id, staff.get(req) as Actor));
    },
  });
}
