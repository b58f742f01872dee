import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import { NoQuerySchema } from '../domain/feedback-schemas.ts';
import {
  FaqConflictIdParamsSchema,
  FaqConflictListQuerySchema,
  FaqCreateSchema,
  FaqIdParamsSchema,
  FaqListQuerySchema,
  FaqResolveSchema,
  FaqRunListQuerySchema,
  FaqUpdateSchema,
} from '../domain/faq-schemas.ts';
import {
  archiveFaq,
  createFaq,
  listConflicts,
  listFaq,
  listRuns,
  readFaq,
  requireAdmin,
  resolveConflict,
  updateFaq,
} from '../service/faq-service.ts';
import { runFaqSync, type FaqSyncDeps } from '../service/faq-sync.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

/**
 * The FAQ (README, "FAQ"): agents and admins read the entries; admins write them, run the sync, read its
 * history and resolve its conflicts. The fixed paths are added before `/api/v1/faq/:id`.
 */
export function registerFaqRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { staff: StaffAuthentication; sync: FaqSyncDeps },
): void {
  const { staff } = deps;
  const service = { db: ctx.db, clock: ctx.clock };
  // Admin routes refuse other staff before validation, like a missing session: no hint about the shape.
  const asAdmin: StaffAuthentication['authenticate'] = async (req, res) => {
    await staff.authenticate(req, res);
    requireAdmin(staff.scope(req));
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/faq',
    authenticate: staff.authenticate,
    schema: { query: FaqListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listFaq(service, query));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/faq',
    authenticate: asAdmin,
    schema: { query: NoQuerySchema, body: FaqCreateSchema },
    handler: async (_req, res, { body }) => {
      const entry = await createFaq(service, body);
      res.status(201).location(`/api/v1/faq/${entry.id}`).json(entry);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/faq/conflicts',
    authenticate: asAdmin,
    schema: { query: FaqConflictListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listConflicts(service, query));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/faq/conflicts/:id/resolve',
    authenticate: asAdmin,
    schema: { params: FaqConflictIdParamsSchema, query: NoQuerySchema, body: FaqResolveSchema },
    handler: async (req, res, { params, body }) => {
      res.json(await resolveConflict(service, staff.scope(req), params.id, body.keep));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/faq/sync',
    authenticate: asAdmin,
    schema: { query: NoQuerySchema },
    handler: async (_req, res) => {
      res.json(await runFaqSync(deps.sync, 'manual'));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/faq/sync/runs',
    authenticate: asAdmin,
    schema: { query: FaqRunListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listRuns(service, query));
    },
  });

  registerEntryRoutes(ctx, staff, asAdmin);
}

function registerEntryRoutes(
  ctx: PluginContext<MessagingEnv>,
  staff: StaffAuthentication,
  asAdmin: StaffAuthentication['authenticate'],
): void {
  const service = { db: ctx.db, clock: ctx.clock };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/faq/:id',
    authenticate: staff.authenticate,
    schema: { params: FaqIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      res.json(await readFaq(service, params.id));
    },
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/faq/:id',
    authenticate: asAdmin,
    schema: { params: FaqIdParamsSchema, query: NoQuerySchema, body: FaqUpdateSchema },
    handler: async (_req, res, { params, body }) => {
      res.json(await updateFaq(service, params.id, body));
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/faq/:id',
    authenticate: asAdmin,
    schema: { params: FaqIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      await archiveFaq(service, params.id);
      res.status(204).end();
    },
  });
}
