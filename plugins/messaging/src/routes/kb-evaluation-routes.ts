import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { NoQuerySchema } from '../domain/feedback-schemas.ts';
import {
  KbEvalItemIdParamsSchema,
  KbEvalItemInputSchema,
  KbEvalItemListQuerySchema,
  KbEvalRunIdParamsSchema,
  KbEvalRunListQuerySchema,
} from '../domain/kb-evaluation-schemas.ts';
import { requireAdmin } from '../service/kb-documents.ts';
import {
  createEvaluationItem,
  deleteEvaluationItem,
  listEvaluationItems,
  listEvaluationRuns,
  readEvaluationItem,
  readEvaluationRun,
  replaceEvaluationItem,
  seedEvaluationItems,
  startEvaluationRun,
} from '../service/kb-evaluation-admin.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

const ITEMS = '/api/v1/kb/evaluation/items';
const RUNS = '/api/v1/kb/evaluation/runs';

/**
 * The KB evaluation routes (README, "Knowledge base", "Evaluation"): every staff member reads the set and the
 * runs; admins change the set, seed it and start runs. Gated and staff-authenticated; writes are audited.
 */
export function registerKbEvaluationRoutes(
  ctx: PluginContext<unknown>,
  deps: { staff: StaffAuthentication },
): void {
  const { staff } = deps;
  const { authenticate } = staff;
  const service = { db: ctx.db, clock: ctx.clock };
  // Admin routes refuse other staff before validation, like a missing session: no hint about the shape.
  const asAdmin: StaffAuthentication['authenticate'] = async (req, res) => {
    await authenticate(req, res);
    requireAdmin(staff.scope(req));
  };

  ctx.routes.add({
    method: 'GET',
    path: ITEMS,
    authenticate,
    schema: { query: KbEvalItemListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listEvaluationItems(service, query));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: ITEMS,
    authenticate: asAdmin,
    schema: { query: NoQuerySchema, body: KbEvalItemInputSchema },
    handler: async (_req, res, { body }) => {
      const item = await createEvaluationItem(service, body);
      res.status(201).location(`${ITEMS}/${item.id}`).json(item);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: `${ITEMS}/:id`,
    authenticate,
    schema: { params: KbEvalItemIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      res.json(await readEvaluationItem(service, params.id));
    },
  });

  ctx.routes.add({
    method: 'PUT',
    path: `${ITEMS}/:id`,
    authenticate: asAdmin,
    schema: { params: KbEvalItemIdParamsSchema, query: NoQuerySchema, body: KbEvalItemInputSchema },
    handler: async (_req, res, { params, body }) => {
      res.json(await replaceEvaluationItem(service, params.id, body));
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: `${ITEMS}/:id`,
    authenticate: asAdmin,
    schema: { params: KbEvalItemIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      await deleteEvaluationItem(service, params.id);
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/kb/evaluation/seed',
    authenticate: asAdmin,
    schema: { query: NoQuerySchema },
    handler: async (_req, res) => {
      res.json(await seedEvaluationItems(service));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: RUNS,
    authenticate: asAdmin,
    schema: { query: NoQuerySchema },
    handler: async (req, res) => {
      const run = await startEvaluationRun(service, staff.scope(req).userId);
      res.status(201).location(`${RUNS}/${run.id}`).json(run);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: RUNS,
    authenticate,
    schema: { query: KbEvalRunListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listEvaluationRuns(service, query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: `${RUNS}/:id`,
    authenticate,
    schema: { params: KbEvalRunIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      res.json(await readEvaluationRun(service, params.id));
    },
  });
}
