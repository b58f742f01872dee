import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { NoQuerySchema } from '../domain/feedback-schemas.ts';
import {
  KbDocumentChangesSchema,
  KbDocumentCreateSchema,
  KbDocumentIdParamsSchema,
  KbDocumentListQuerySchema,
  KbImportSchema,
} from '../domain/kb-schemas.ts';
import { leadPrecondition } from '../domain/lead-etag.ts';
import {
  archiveKbDocument,
  createKbDocument,
  listKbDocuments,
  listKbDocumentVersions,
  readKbDocument,
  updateKbDocument,
} from '../service/kb-documents.ts';
import { importKbFiles, kbSources } from '../service/kb-sources.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

/**
 * The knowledge-base routes (README, "Knowledge base"): documents (admins write, every staff member reads),
 * their versions, the sources and the file import. All gated and staff-authenticated; writes are audited.
 */
export function registerKbRoutes(ctx: PluginContext<unknown>, deps: { staff: StaffAuthentication }): void {
  const { staff } = deps;
  const { authenticate } = staff;
  const service = { db: ctx.db, clock: ctx.clock };

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/kb/documents',
    authenticate,
    schema: { query: NoQuerySchema, body: KbDocumentCreateSchema },
    handler: async (req, res, { body }) => {
      const { view, etag } = await createKbDocument(service, staff.scope(req), body);
      res.setHeader('ETag', etag);
      res.status(201).json(view);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/kb/documents',
    authenticate,
    schema: { query: KbDocumentListQuerySchema },
    handler: async (_req, res, { query }) => {
      res.json(await listKbDocuments(service, query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/kb/documents/:id',
    authenticate,
    schema: { params: KbDocumentIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      const { view, etag } = await readKbDocument(service, params.id);
      res.setHeader('ETag', etag);
      res.setHeader('Cache-Control', 'no-store');
      res.json(view);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/kb/documents/:id/versions',
    authenticate,
    schema: { params: KbDocumentIdParamsSchema, query: NoQuerySchema },
    handler: async (_req, res, { params }) => {
      res.json({ items: await listKbDocumentVersions(service, params.id) });
    },
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/kb/documents/:id',
    authenticate,
    schema: { params: KbDocumentIdParamsSchema, query: NoQuerySchema, body: KbDocumentChangesSchema },
    handler: async (req, res, { params, body }) => {
      const precondition = leadPrecondition(req.get('if-match'), params.id);
      const { view, etag } = await updateKbDocument(service, staff.scope(req), params.id, body, precondition);
      res.setHeader('ETag', etag);
      res.json(view);
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/kb/documents/:id',
    authenticate,
    schema: { params: KbDocumentIdParamsSchema, query: NoQuerySchema },
    handler: async (req, res, { params }) => {
      const precondition = leadPrecondition(req.get('if-match'), params.id);
      await archiveKbDocument(service, staff.scope(req), params.id, precondition);
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/kb/sources',
    authenticate,
    schema: { query: NoQuerySchema },
    handler: async (_req, res) => {
      res.json(await kbSources(service));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/kb/import',
    authenticate,
    schema: { query: NoQuerySchema, body: KbImportSchema },
    handler: async (req, res, { body }) => {
      res.status(201).json(await importKbFiles(service, staff.scope(req), body));
    },
  });
}
