import type { RouteRegistrar } from '../../../../gateway/src/plugin-api.ts';
import { buildStaffApiDocument } from '../openapi/document.ts';

/** Where the staff API's OpenAPI document is served. */
export const STAFF_API_DOCUMENT_PATH = '/api/v1/openapi.json';

/**
 * GET /api/v1/openapi.json: the staff API's OpenAPI 3.1 document (README, "Staff API", "API document"),
 * exempt from the API gate so that code generators and viewers fetch it with a plain GET. It holds no data,
 * only the shape of the API, the same for every deployment of this version (which plugins run is public
 * on `GET /` already); every route it describes stays behind both gate layers. Built once here; requests
 * only write the buffer.
 */
export function registerOpenApiRoutes(routes: RouteRegistrar): void {
  const document = Buffer.from(JSON.stringify(buildStaffApiDocument()));
  routes.add({
    method: 'GET',
    path: STAFF_API_DOCUMENT_PATH,
    exempt: true,
    handler: (_req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(document);
    },
  });
}
