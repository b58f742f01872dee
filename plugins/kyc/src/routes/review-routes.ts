import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { auditRecord } from '../domain/actor.ts';
import { AdminIdParamsSchema, DecisionSchema } from '../domain/admin-schemas.ts';
import type { KycEnv } from '../config.ts';
import type { VerificationService } from '../service/verification/verification-service.ts';
import { staffAuthentication } from './staff-authentication.ts';

/**
 * A reviewer's decision on a verification (README, "For staff"): the way out of `needs_review`, and the
 * only outcome of a live tenant's verification while the manual provider checks them. Same access rules as
 * the other admin routes; the decision is audited as `kyc.verification.decided`.
 */
export function registerReviewRoutes(
  ctx: PluginContext<KycEnv>,
  deps: { verifications: VerificationService },
): void {
  const { authenticate, actor } = staffAuthentication(ctx);
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/kyc/verifications/:id/decision',
    sensitive: true,
    authenticate,
    schema: { params: AdminIdParamsSchema, body: DecisionSchema },
    handler: async (req, res, { params, body }) => {
      const who = actor(req);
      const view = await deps.verifications.decide(params.id, body.decision, {
        reason: body.reason,
        actor: `reviewer:${who.actor}`,
      });
      ctx.audit.writeLater(
        auditRecord(who, 'kyc.verification.decided', { verificationId: params.id, decision: body.decision }),
      );
      res.json(view);
    },
  });
}
