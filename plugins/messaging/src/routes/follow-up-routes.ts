import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import { NoQuerySchema } from '../domain/feedback-schemas.ts';
import {
  IdParamsSchema,
  QueueQuerySchema,
  RuleInputSchema,
  TriggerInputSchema,
} from '../domain/follow-up-schemas.ts';
import { type FollowUpService, requireAdmin } from '../service/follow-up-service.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

const RULES = '/api/v1/follow-up/rules';

/**
 * Follow-ups (README, "Follow-ups"): rules (admins only), the queue (agents see their clusters'
 * conversations, admins all), cancelling a pending follow-up and triggering one by hand. All gated; writes
 * are audited by the staff authentication step.
 */
export function registerFollowUpRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { staff: StaffAuthentication; followUps: FollowUpService },
): void {
  const { staff, followUps } = deps;
  const authenticate = staff.authenticate;
  /** Staff authentication, then the admin check, before the request's shape is looked at. */
  const admin = async (req: Parameters<typeof authenticate>[0], res: Parameters<typeof authenticate>[1]) => {
    await authenticate(req, res);
    requireAdmin(staff.scope(req));
  };

  ctx.routes.add({
    method: 'GET',
    path: RULES,
    authenticate: admin,
    schema: { query: NoQuerySchema },
    handler: async (_req, res) => {
      res.json({ items: await followUps.listRules() });
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: RULES,
    authenticate: admin,
    schema: { query: NoQuerySchema, body: RuleInputSchema },
    handler: async (_req, res, { body }) => {
      res.status(201).json(await followUps.createRule(body));
    },
  });
  ctx.routes.add({
    method: 'GET',
    path: `${RULES}/:id`,
    authenticate: admin,
    schema: { params: IdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      res.json(await followUps.getRule(params.id));
    },
  });
  ctx.routes.add({
    method: 'PUT',
    path: `${RULES}/:id`,
    authenticate: admin,
    schema: { params: IdParamsSchema, query: NoQuerySchema, body: RuleInputSchema },
    handler: async (_req, res, { params, body }) => {
      res.json(await followUps.replaceRule(params.id, body));
    },
  });
  ctx.routes.add({
    method: 'DELETE',
    path: `${RULES}/:id`,
    authenticate: admin,
    schema: { params: IdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      await followUps.deleteRule(params.id);
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/follow-up/queue',
    authenticate,
    schema: { query: QueueQuerySchema },
    handler: async (req, res, { query }) => {
      res.json({ items: await followUps.queue(staff.scope(req), query) });
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/follow-up/queue/:id/cancel',
    authenticate,
    schema: { params: IdParamsSchema, query: NoQuerySchema },
    handler: async (req, res, { params }) => {
      res.json(await followUps.cancel(staff.scope(req), params.id));
    },
  });
  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/follow-up/trigger',
    authenticate,
    schema: { query: NoQuerySchema, body: TriggerInputSchema },
    handler: async (req, res, { body }) => {
      res.status(202).json(await followUps.trigger(staff.scope(req), body));
    },
  });
}
