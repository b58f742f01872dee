import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { AdminIdParamsSchema } from '../domain/admin-schemas.ts';
import type { KycEnv } from '../config.ts';
import type { WebhookService } from '../webhooks/webhook-service.ts';
import { staffAuthentication } from './staff-authentication.ts';

/**
 * The staff API for outbound webhooks (README, "Webhooks", "For staff"): a verification's deliveries with
 * every attempt, and a manual resend. Gated, sensitive (every call audited with the caller) and limited to
 * `kyc:admin` or the wildcard admin role, like the other KYC admin routes (tenant-admin-routes.ts).
 */
export function registerWebhookAdminRoutes(
  ctx: PluginContext<KycEnv>,
  deps: { webhooks: WebhookService },
): void {
  const { authenticate, actor } = staffAuthentication(ctx);

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/kyc/verifications/:id/webhooks',
    sensitive: true,
    authenticate,
    schema: { params: AdminIdParamsSchema },
    handler: async (_req, res, { params }) => {
      res.json({ deliveries: await deps.webhooks.listForVerification(params.id) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/webhooks/:id/resend',
    sensitive: true,
    authenticate,
    schema: { params: AdminIdParamsSchema },
    handler: async (req, res, { params }) => {
      // 202: queued; the worker sends it on its next pass.
      res.status(202).json(await deps.webhooks.resend(params.id, actor(req)));
    },
  });
}
