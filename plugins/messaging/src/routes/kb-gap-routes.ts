import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { NoQuerySchema } from '../domain/feedback-schemas.ts';
import { KbGapListQuerySchema } from '../domain/kb-gap-schemas.ts';
import { requireAdmin } from '../service/kb-documents.ts';
import { type KbGapDeps, listGaps, refreshGaps } from '../service/kb-gaps.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

/**
 * The knowledge base's gap routes (README, "Knowledge base", "Gaps"): admins only, since the examples are
 * customers' messages from every cluster. Gated and staff-authenticated; the refresh is audited as a write.
 */
export function registerKbGapRoutes(
  ctx: PluginContext<unknown>,
  deps: { staff: StaffAuthentication; gaps: KbGapDeps },
): void {
  const { staff, gaps } = deps;
  // Other staff are refused before validation, like a missing session: no hint about the shape.
  const asAdmin: StaffAuthentication['authenticate'] = async (req, res) => {
    await staff.authenticate(req, res);
    requireAdmin(staff.scope(req));
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/kb/gaps',
    authenticate: asAdmin,
    // Customers' own words in bulk: audited like other bulk reads of personal data.
    sensitive: true,
    schema: { query: KbGapListQuerySchema },
    handler: async (req, res, { query }) => {
      res.setHeader('Cache-Control', 'no-store');
      res.json(await listGaps(gaps, staff.scope(req), query));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/kb/gaps/refresh',
    authenticate: asAdmin,
    schema: { query: NoQuerySchema },
    handler: async (req, res) => {
      res.json(await refreshGaps(gaps, staff.scope(req)));
    },
  });
}
