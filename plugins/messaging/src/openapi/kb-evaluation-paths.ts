import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import {
  KbEvalItemIdParamsSchema,
  KbEvalItemInputSchema,
  KbEvalItemListQuerySchema,
  KbEvalItemPageSchema,
  KbEvalItemSchema,
  KbEvalRunIdParamsSchema,
  KbEvalRunListQuerySchema,
  KbEvalRunPageSchema,
  KbEvalRunSchema,
  KbEvalSeedResultSchema,
} from '../domain/kb-evaluation-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Knowledge base';

const forbidden = problem([messagingErrors.create('messaging.staff.admin_required')]);
const itemNotFound = problem([messagingErrors.create('messaging.kb.evaluation_item_not_found')]);
const badItemId = badRequest('params.id', 'must be an evaluation item id');
const tooLarge = problem([coreErrors.create('request.too_large')]);
const unknownDocument = problem([messagingErrors.create('messaging.kb.evaluation_document_unknown')]);
const badCursor = badRequest('query.limit', 'must be an integer from 1 to 100', [
  messagingErrors.create('messaging.cursor.invalid'),
]);
const json = <T>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});
const itemBody = { required: true, content: { 'application/json': { schema: KbEvalItemInputSchema } } };
const badItem = badRequest('body.question', 'Too small: expected string to have >=1 characters', [
  coreErrors.create('request.malformed_json'),
]);

/** The KB evaluation routes' operations in the staff API document (openapi/document.ts). */
export function kbEvaluationPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/kb/evaluation/items': { get: listItemsOperation(), post: createItemOperation() },
    '/api/v1/kb/evaluation/items/{id}': {
      get: readItemOperation(),
      put: replaceItemOperation(),
      delete: deleteItemOperation(),
    },
    '/api/v1/kb/evaluation/seed': { post: seedOperation() },
    '/api/v1/kb/evaluation/runs': { post: runOperation(), get: listRunsOperation() },
    '/api/v1/kb/evaluation/runs/{id}': { get: readRunOperation() },
  };
}

function listItemsOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listKbEvaluationItems',
    tags: [TAG],
    summary: 'List the evaluation set',
    description: 'Items oldest first, filtered by origin, language and held-out; keyset pages.',
    requestParams: { query: KbEvalItemListQuerySchema },
    responses: {
      '200': json('One page.', KbEvalItemPageSchema),
      '400': badCursor,
      ...staffResponses,
    },
  };
}

function createItemOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'createKbEvaluationItem',
    tags: [TAG],
    summary: 'Add an evaluation item (admins)',
    description: 'A question with the documents that answer it and/or the intent it should get.',
    requestBody: itemBody,
    responses: {
      '201': json('The item.', KbEvalItemSchema),
      '400': badItem,
      '403': forbidden,
      '413': tooLarge,
      '422': unknownDocument,
      ...staffResponses,
    },
  };
}

function readItemOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getKbEvaluationItem',
    tags: [TAG],
    summary: 'Read an evaluation item',
    requestParams: { path: KbEvalItemIdParamsSchema },
    responses: {
      '200': json('The item.', KbEvalItemSchema),
      '400': badItemId,
      '404': itemNotFound,
      ...staffResponses,
    },
  };
}

function replaceItemOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'replaceKbEvaluationItem',
    tags: [TAG],
    summary: 'Replace an evaluation item (admins)',
    description: 'Every field is replaced (left out: its default); the origin stays.',
    requestParams: { path: KbEvalItemIdParamsSchema },
    requestBody: itemBody,
    responses: {
      '200': json('The item after the change.', KbEvalItemSchema),
      '400': badItem,
      '403': forbidden,
      '404': itemNotFound,
      '413': tooLarge,
      '422': unknownDocument,
      ...staffResponses,
    },
  };
}

function deleteItemOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'deleteKbEvaluationItem',
    tags: [TAG],
    summary: 'Delete an evaluation item (admins)',
    description: 'A seeded item deleted here is not seeded again.',
    requestParams: { path: KbEvalItemIdParamsSchema },
    responses: {
      '204': { description: 'The item is deleted.' },
      '400': badItemId,
      '403': forbidden,
      '404': itemNotFound,
      ...staffResponses,
    },
  };
}

function seedOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'seedKbEvaluationSet',
    tags: [TAG],
    summary: 'Seed the evaluation set (admins)',
    description:
      "Adds the classifier's gold set (each utterance with its intent and held-out split) and staff intent " +
      'corrections not seeded before; repeatable.',
    responses: {
      '200': json('How many items were added.', KbEvalSeedResultSchema),
      '403': forbidden,
      ...staffResponses,
    },
  };
}

function runOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'runKbEvaluation',
    tags: [TAG],
    summary: 'Run the evaluation set (admins)',
    description:
      'Searches the published knowledge base for every item, stores the figures with the KB version and ' +
      'answers them with the delta to the previous run. One run at a time across replicas.',
    responses: {
      '201': json('The run.', KbEvalRunSchema),
      '403': forbidden,
      '409': problem([messagingErrors.create('messaging.kb.evaluation_running')]),
      '422': problem([messagingErrors.create('messaging.kb.evaluation_set_empty')]),
      ...staffResponses,
    },
  };
}

function listRunsOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listKbEvaluationRuns',
    tags: [TAG],
    summary: 'List evaluation runs',
    description: 'Newest first, each with its delta to the run before it; keyset pages.',
    requestParams: { query: KbEvalRunListQuerySchema },
    responses: {
      '200': json('One page.', KbEvalRunPageSchema),
      '400': badCursor,
      ...staffResponses,
    },
  };
}

function readRunOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getKbEvaluationRun',
    tags: [TAG],
    summary: 'Read an evaluation run',
    requestParams: { path: KbEvalRunIdParamsSchema },
    responses: {
      '200': json('The run.', KbEvalRunSchema),
      '400': badRequest('params.id', 'must be an evaluation run id'),
      '404': problem([messagingErrors.create('messaging.kb.evaluation_run_not_found')]),
      ...staffResponses,
    },
  };
}
