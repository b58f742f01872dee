import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import {
  KbDocumentChangesSchema,
  KbDocumentCreateSchema,
  KbDocumentIdParamsSchema,
  KbDocumentListQuerySchema,
  KbDocumentPageSchema,
  KbDocumentSchema,
  KbDocumentVersionSchema,
  KbImportResultSchema,
  KbImportSchema,
  KbSourcesSchema,
} from '../domain/kb-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Knowledge base';

const notFound = problem([messagingErrors.create('messaging.kb.document_not_found')]);
const forbidden = problem([messagingErrors.create('messaging.staff.admin_required')]);
const badId = badRequest('params.id', 'must be a document id');
const tooLarge = problem([coreErrors.create('request.too_large')]);
const etagHeader = {
  ETag: { description: 'The version: send it back in `If-Match`.', schema: { type: 'string' as const } },
};
const document = (description: string) => ({
  description,
  headers: etagHeader,
  content: { 'application/json': { schema: KbDocumentSchema } },
});
const ifMatch = z.object({
  'if-match': z
    .string()
    .optional()
    .meta({ description: 'The ETag you read; optional (412 when it is stale).' }),
});

/** The knowledge-base routes' operations in the staff API document (openapi/document.ts). */
export function kbPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/kb/documents': { post: createOperation(), get: listOperation() },
    '/api/v1/kb/documents/{id}': {
      get: readOperation(),
      patch: updateOperation(),
      delete: deleteOperation(),
    },
    '/api/v1/kb/documents/{id}/versions': { get: versionsOperation() },
    '/api/v1/kb/sources': { get: sourcesOperation() },
    '/api/v1/kb/import': { post: importOperation() },
  };
}

function createOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'createKbDocument',
    tags: [TAG],
    summary: 'Create a document (admins)',
    description: 'A new document, as a draft or published (then searched by the bot at once).',
    requestBody: { required: true, content: { 'application/json': { schema: KbDocumentCreateSchema } } },
    responses: {
      '201': document('The document.'),
      '400': badRequest('body.language', 'Invalid option: expected one of "id"|"en"', [
        coreErrors.create('request.malformed_json'),
      ]),
      '403': forbidden,
      '413': tooLarge,
      ...staffResponses,
    },
  };
}

function listOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listKbDocuments',
    tags: [TAG],
    summary: 'List documents',
    description: 'Documents, the latest change first, filtered; keyset pages.',
    requestParams: { query: KbDocumentListQuerySchema },
    responses: {
      '200': { description: 'One page.', content: { 'application/json': { schema: KbDocumentPageSchema } } },
      '400': badRequest('query.limit', 'must be an integer from 1 to 100', [
        messagingErrors.create('messaging.cursor.invalid'),
      ]),
      ...staffResponses,
    },
  };
}

function readOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getKbDocument',
    tags: [TAG],
    summary: 'Read a document',
    requestParams: { path: KbDocumentIdParamsSchema },
    responses: { '200': document('The document.'), '400': badId, '404': notFound, ...staffResponses },
  };
}

function updateOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'updateKbDocument',
    tags: [TAG],
    summary: 'Change, publish or unpublish a document (admins)',
    description: 'The state before the change is kept as a version. What the bot searches follows at once.',
    requestParams: { path: KbDocumentIdParamsSchema, header: ifMatch },
    requestBody: { required: true, content: { 'application/json': { schema: KbDocumentChangesSchema } } },
    responses: {
      '200': document('The document after the change.'),
      '400': badId,
      '403': forbidden,
      '404': notFound,
      '409': problem([messagingErrors.create('messaging.kb.document_archived')]),
      '412': problem([messagingErrors.create('messaging.kb.precondition_failed')]),
      '413': tooLarge,
      ...staffResponses,
    },
  };
}

function deleteOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'archiveKbDocument',
    tags: [TAG],
    summary: 'Archive a document (admins)',
    description: 'The soft delete: the document is no longer searched; it stays readable with its versions.',
    requestParams: { path: KbDocumentIdParamsSchema, header: ifMatch },
    responses: {
      '204': { description: 'The document is archived.' },
      '400': badId,
      '403': forbidden,
      '404': notFound,
      '412': problem([messagingErrors.create('messaging.kb.precondition_failed')]),
      ...staffResponses,
    },
  };
}

function versionsOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listKbDocumentVersions',
    tags: [TAG],
    summary: 'A document’s earlier versions',
    requestParams: { path: KbDocumentIdParamsSchema },
    responses: {
      '200': {
        description: 'Newest first.',
        content: { 'application/json': { schema: z.object({ items: z.array(KbDocumentVersionSchema) }) } },
      },
      '400': badId,
      '404': notFound,
      ...staffResponses,
    },
  };
}

function sourcesOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getKbSources',
    tags: [TAG],
    summary: 'Where documents come from',
    description: 'Per source the document counts by status; for imports the last import and its errors.',
    responses: {
      '200': { description: 'The sources.', content: { 'application/json': { schema: KbSourcesSchema } } },
      ...staffResponses,
    },
  };
}

function importOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'importKbFiles',
    tags: [TAG],
    summary: 'Import Markdown or text files (admins)',
    description:
      'One document per file, titled by its first heading or its file name. A file without text is an ' +
      'error of its item; the others are imported.',
    requestBody: { required: true, content: { 'application/json': { schema: KbImportSchema } } },
    responses: {
      '201': {
        description: 'The import.',
        content: { 'application/json': { schema: KbImportResultSchema } },
      },
      '400': badRequest('body.items', 'Too small: expected array to have >=1 items', [
        coreErrors.create('request.malformed_json'),
      ]),
      '403': forbidden,
      '413': tooLarge,
      ...staffResponses,
    },
  };
}
