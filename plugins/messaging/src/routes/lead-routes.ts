import type { Response } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { leadPrecondition } from '../domain/lead-etag.ts';
import {
  LeadChangesSchema,
  LeadExportQuerySchema,
  LeadIdParamsSchema,
  LeadListQuerySchema,
  LeadSummaryQuerySchema,
} from '../domain/lead-schemas.ts';
import type { CsvSink } from '../service/lead-export.ts';
import type { LeadService } from '../service/lead-service.ts';
import { registerLegacyLeadRoutes } from './legacy-lead-routes.ts';
import type { StaffAuthentication } from './staff-authentication.ts';
import { drainedOrClosed } from './drained.ts';

export interface LeadRoutesDeps {
  staff: StaffAuthentication;
  leads: LeadService;
}

/**
 * The leads routes (README, "Staff API", "Leads"): v2 under `/api/v1/leads/v2` (list, summary, CSV export,
 * detail, patch) and the legacy `/api/v1/leads`. The detail and the export hand out a lead's personal data
 * one by one or in bulk, so every read of them is audited (`sensitive`), like every write.
 */
export function registerLeadRoutes(ctx: PluginContext<unknown>, deps: LeadRoutesDeps): void {
  const { staff, leads } = deps;
  const { authenticate } = staff;
  registerLegacyLeadRoutes(ctx, deps);

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/leads/v2',
    authenticate,
    schema: { query: LeadListQuerySchema },
    handler: async (req, res, { query }) => {
      res.json(await leads.list(staff.scope(req), query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/leads/v2/summary',
    authenticate,
    schema: { query: LeadSummaryQuerySchema },
    handler: async (req, res, { query }) => {
      res.json(await leads.summary(staff.scope(req), query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/leads/v2/export.csv',
    authenticate,
    sensitive: true,
    schema: { query: LeadExportQuerySchema },
    handler: async (req, res, { query }) => {
      await leads.export(staff.scope(req), query, () => {
        res.status(200);
        res.setHeader('Content-Type', 'text/csv; charset=utf-8; header=present');
        res.setHeader('Content-Disposition', `attachment; filename="${exportFileName(ctx.clock.now())}"`);
        res.setHeader('Cache-Control', 'no-store');
        // A HEAD request learns whether the export would be accepted, and nothing is read for it.
        return req.method === 'HEAD' ? { write: () => Promise.resolve(false) } : responseSink(res);
      });
      res.end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/leads/v2/:id',
    authenticate,
    sensitive: true,
    schema: { params: LeadIdParamsSchema },
    handler: async (req, res, { params }) => {
      const { view, etag } = await leads.detail(staff.scope(req), params.id);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'no-store');
      res.json(view);
    },
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/leads/v2/:id',
    authenticate,
    schema: { params: LeadIdParamsSchema, body: LeadChangesSchema },
    handler: async (req, res, { params, body }) => {
      const precondition = leadPrecondition(req.get('if-match'), params.id);
      const { view, etag } = await leads.patch(staff.scope(req), params.id, body, precondition);
      res.setHeader('ETag', etag);
      res.json(view);
    },
  });
}

/** `leads-20261124T103000Z.csv`: when it was made, in a name every file system takes. */
function exportFileName(now: Date): string {
  return `leads-${now.toISOString().slice(0, 19).replaceAll('-', '').replaceAll(':', '')}Z.csv`;
}

/**
 * The response as a CSV sink that honours backpressure: when the socket's buffer is full, the next batch
 * waits for `drain`. A client that went away stops the export.
 */
function responseSink(res: Response): CsvSink {
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  return {
    async write(text) {
      if (gone) return false;
      if (!res.write(text)) await drainedOrClosed(res);
      return !gone;
    },
  };
}
