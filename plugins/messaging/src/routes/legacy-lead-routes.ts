import type { Request, Response } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { leadEtag } from '../domain/lead-etag.ts';
import { LegacyLeadCreateSchema, LegacyLeadListQuerySchema } from '../domain/lead-schemas.ts';
import { legacyLeadView } from '../domain/lead-views.ts';
import { LEGACY_LEADS_HEADERS } from '../domain/legacy-leads.ts';
import type { LeadService } from '../service/lead-service.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

/**
 * The legacy leads API, `GET` and `POST /api/v1/leads` (README, "Staff API", "Leads"): kept for the clients
 * written against it, and deprecated in favour of `/api/v1/leads/v2`. The headers saying so are set
 * before anything else runs, so every answer of these routes carries them, refusals included.
 */
export function registerLegacyLeadRoutes(
  ctx: PluginContext<unknown>,
  deps: { staff: StaffAuthentication; leads: LeadService },
): void {
  const { staff, leads } = deps;
  const authenticate = async (req: Request, res: Response) => {
    for (const [name, value] of Object.entries(LEGACY_LEADS_HEADERS)) res.setHeader(name, value);
    await staff.authenticate(req, res);
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/leads',
    authenticate,
    schema: { query: LegacyLeadListQuerySchema },
    handler: async (req, res, { query }) => {
      const newest = await leads.newest(staff.scope(req), query.limit);
      res.json({ items: newest.map(legacyLeadView) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/leads',
    authenticate,
    schema: { body: LegacyLeadCreateSchema },
    handler: async (req, res, { body }) => {
      const lead = await leads.create(staff.scope(req), body);
      res.setHeader('Location', `/api/v1/leads/v2/${lead.id}`);
      res.setHeader('ETag', leadEtag(lead.id, lead.version));
      res.status(201).json(legacyLeadView(lead));
    },
  });
}
