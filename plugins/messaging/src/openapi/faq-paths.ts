import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import {
  FaqConflictIdParamsSchema,
  FaqConflictListQuerySchema,
  FaqConflictSchema,
  FaqCreateSchema,
  FaqEntrySchema,
  FaqIdParamsSchema,
  FaqListQuerySchema,
  FaqResolveSchema,
  FaqRunListQuerySchema,
  FaqSyncRunSchema,
  FaqUpdateSchema,
  pageOf,
} from '../domain/faq-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'FAQ';

const forbidden = { '403': problem([messagingErrors.create('messaging.staff.admin_required')]) };
const entryNotFound = { '404': problem([messagingErrors.create('messaging.faq.not_found')]) };
const badId = badRequest('params.id', 'must be a FAQ entry id');
const badCursor = badRequest('query.limit', 'must be an integer from 1 to 100', [
  messagingErrors.create('messaging.cursor.invalid'),
]);
const tooLarge = { '413': problem([coreErrors.create('request.too_large')]) };

function json(description: string, schema: Parameters<typeof pageOf>[0]): ZodOpenApiResponseObject {
  return { description, content: { 'application/json': { schema } } };
}

function op(
  operationId: string,
  summary: string,
  description: string,
  rest: Omit<ZodOpenApiOperationObject, 'operationId' | 'summary' | 'description' | 'tags'>,
): ZodOpenApiOperationObject {
  return { operationId, tags: [TAG], summary, description, ...rest };
}

/** The FAQ routes' operations in the staff API document (openapi/document.ts; README, "FAQ"). */
export function faqPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/faq': { get: listOperation(), post: createOperation() },
    '/api/v1/faq/{id}': { get: readOperation(), patch: updateOperation(), delete: archiveOperation() },
    '/api/v1/faq/conflicts': { get: conflictsOperation() },
    '/api/v1/faq/conflicts/{id}/resolve': { post: resolveOperation() },
    '/api/v1/faq/sync': { post: syncOperation() },
    '/api/v1/faq/sync/runs': { get: runsOperation() },
  };
}

function listOperation() {
  return op(
    'listFaq',
    'List FAQ entries',
    'Live (or, with `archived=true`, archived) entries, newest first.',
    {
      requestParams: { query: FaqListQuerySchema },
      responses: {
        '200': json('One page.', pageOf(FaqEntrySchema, 'FaqEntryPage')),
        '400': badCursor,
        ...staffResponses,
      },
    },
  );
}

function createOperation() {
  return op('createFaq', 'Create a local FAQ entry', 'Admins only. Unpublished unless `published` is true.', {
    requestBody: { required: true, content: { 'application/json': { schema: FaqCreateSchema } } },
    responses: {
      '201': json('The entry; `Location` names it.', FaqEntrySchema),
      '400': badRequest('body.questions', 'Too small: expected array to have >=1 items'),
      ...forbidden,
      ...tooLarge,
      ...staffResponses,
    },
  });
}

function readOperation() {
  return op('getFaq', 'Read a FAQ entry', 'Live or archived.', {
    requestParams: { path: FaqIdParamsSchema },
    responses: {
      '200': json('The entry.', FaqEntrySchema),
      '400': badId,
      ...entryNotFound,
      ...staffResponses,
    },
  });
}

function updateOperation() {
  return op(
    'updateFaq',
    'Change a FAQ entry',
    'Admins only. A change of questions, answer or language marks a synced entry as edited here: the sync ' +
      'then turns an upstream change of it into a conflict instead of overwriting it.',
    {
      requestParams: { path: FaqIdParamsSchema },
      requestBody: { required: true, content: { 'application/json': { schema: FaqUpdateSchema } } },
      responses: {
        '200': json('The entry as changed.', FaqEntrySchema),
        '400': badId,
        ...forbidden,
        ...entryNotFound,
        '409': problem([messagingErrors.create('messaging.faq.archived')]),
        ...tooLarge,
        ...staffResponses,
      },
    },
  );
}

function archiveOperation() {
  return op('archiveFaq', 'Archive a FAQ entry', 'Admins only. It stops answering; it stays readable.', {
    requestParams: { path: FaqIdParamsSchema },
    responses: {
      '204': { description: 'Archived.' },
      '400': badId,
      ...forbidden,
      ...entryNotFound,
      ...staffResponses,
    },
  });
}

function conflictsOperation() {
  return op(
    'listFaqConflicts',
    'List sync conflicts',
    'Admins only. Upstream changes of entries edited here, open (default) or resolved, newest first.',
    {
      requestParams: { query: FaqConflictListQuerySchema },
      responses: {
        '200': json('One page.', pageOf(FaqConflictSchema, 'FaqConflictPage')),
        '400': badCursor,
        ...forbidden,
        ...staffResponses,
      },
    },
  );
}

function resolveOperation() {
  return op(
    'resolveFaqConflict',
    'Resolve a sync conflict',
    'Admins only. `upstream` takes the upstream content; `local` keeps the local one until the next upstream change.',
    {
      requestParams: { path: FaqConflictIdParamsSchema },
      requestBody: { required: true, content: { 'application/json': { schema: FaqResolveSchema } } },
      responses: {
        '200': json('The resolved conflict.', FaqConflictSchema),
        '400': badRequest('params.id', 'must be a FAQ conflict id'),
        ...forbidden,
        '404': problem([messagingErrors.create('messaging.faq.conflict_not_found')]),
        '409': problem([messagingErrors.create('messaging.faq.conflict_resolved')]),
        ...tooLarge,
        ...staffResponses,
      },
    },
  );
}

function syncOperation() {
  return op(
    'runFaqSync',
    'Sync the FAQ now',
    'Admins only. Pulls the upstream list and applies it; answers the run (also when it failed: see `error`).',
    {
      responses: {
        '200': json('The finished run.', FaqSyncRunSchema),
        ...forbidden,
        '409': problem([messagingErrors.create('messaging.faq.sync_in_progress')]),
        '422': problem([messagingErrors.create('messaging.faq.sync_not_configured')]),
        ...staffResponses,
      },
    },
  );
}

function runsOperation() {
  return op('listFaqSyncRuns', 'List sync runs', 'Admins only. Newest first.', {
    requestParams: { query: FaqRunListQuerySchema },
    responses: {
      '200': json('One page.', pageOf(FaqSyncRunSchema, 'FaqSyncRunPage')),
      '400': badCursor,
      ...forbidden,
      ...staffResponses,
    },
  });
}
