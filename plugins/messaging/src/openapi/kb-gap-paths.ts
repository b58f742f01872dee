import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { KbGapListQuerySchema, KbGapPageSchema, KbGapRefreshSchema } from '../domain/kb-gap-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Knowledge base';
const forbidden = problem([messagingErrors.create('messaging.staff.admin_required')]);

/** The knowledge base's gap routes in the staff API document (openapi/document.ts). */
export function kbGapPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/kb/gaps': { get: listOperation() },
    '/api/v1/kb/gaps/refresh': { post: refreshOperation() },
  };
}

function listOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listKbGaps',
    tags: [TAG],
    summary: 'The top gaps of the knowledge base (admins)',
    description:
      'Groups of messages the knowledge base did not answer (by their normal form), the most candidates ' +
      'first: counts per ISO week, the newest examples, and for closed groups the document that answers ' +
      'them. Keyset pages.',
    requestParams: { query: KbGapListQuerySchema },
    responses: {
      '200': { description: 'One page.', content: { 'application/json': { schema: KbGapPageSchema } } },
      '400': badRequest('query.status', 'Invalid option: expected one of "open"|"closed"|"all"', [
        messagingErrors.create('messaging.cursor.invalid'),
      ]),
      '403': forbidden,
      ...staffResponses,
    },
  };
}

function refreshOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'refreshKbGaps',
    tags: [TAG],
    summary: 'Collect gap candidates and re-check open gaps now (admins)',
    description:
      'Runs the gap pass until nothing is left: new candidates are grouped and counted, and open groups ' +
      'not searched at the current KB version are searched (an answer closes them).',
    responses: {
      '200': {
        description: 'What the pass did.',
        content: { 'application/json': { schema: KbGapRefreshSchema } },
      },
      '403': forbidden,
      ...staffResponses,
    },
  };
}
