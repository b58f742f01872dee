import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import { LEAD_CSV_COLUMNS } from '../domain/lead-csv.ts';
import {
  LeadChangesSchema,
  LeadExportQuerySchema,
  LeadIdParamsSchema,
  LeadListQuerySchema,
  LeadSummaryQuerySchema,
  LegacyLeadCreateSchema,
  LegacyLeadListQuerySchema,
} from '../domain/lead-schemas.ts';
import {
  LeadDetailSchema,
  LeadPageSchema,
  LeadSchema,
  LeadSummarySchema,
  LegacyLeadListSchema,
  LegacyLeadSchema,
} from '../domain/lead-views.ts';
import { LEGACY_LEADS_HEADERS } from '../domain/legacy-leads.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Leads';
const LEGACY_TAG = 'Leads (legacy)';
const EXAMPLE_ID = '6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c';

const ETag = z.string().meta({
  description: "The lead's version as a strong entity tag; send it back in `If-Match` to change the lead.",
  example: `"${EXAMPLE_ID}.4"`,
  header: { id: 'LeadETag' },
});
const Deprecation = z.string().meta({
  description: 'RFC 9745: this API is deprecated, since the time given (`@` and unix seconds).',
  example: LEGACY_LEADS_HEADERS.Deprecation,
  header: { id: 'Deprecation' },
});
const Link = z.string().meta({
  description: 'The API that replaces this one (`rel="successor-version"`).',
  example: LEGACY_LEADS_HEADERS.Link,
  header: { id: 'SuccessorLink' },
});
const IfMatch = z.string().meta({
  description:
    'The `ETag` of the lead as you read it (or a list of tags); `*` applies the change to whatever the ' +
    'current version is. Without it the change is refused (428); with a tag that is no longer current, ' +
    'it is refused (412) and nothing is written.',
  example: `"${EXAMPLE_ID}.4"`,
});

const leadNotFound = problem([messagingErrors.create('messaging.lead.not_found')]);
const cursorInvalid = messagingErrors.create('messaging.cursor.invalid');
const clusterNotFound = problem([messagingErrors.create('messaging.cluster.not_found')]);

/** The leads routes' operations in the staff API document (openapi/document.ts). */
export function leadsPaths(): ZodOpenApiPathsObject {
  return {
    '/api/v1/leads': { get: legacyListOperation(), post: legacyCreateOperation() },
    '/api/v1/leads/v2': { get: listOperation() },
    '/api/v1/leads/v2/summary': { get: summaryOperation() },
    '/api/v1/leads/v2/export.csv': { get: exportOperation() },
    '/api/v1/leads/v2/{id}': { get: detailOperation(), patch: patchOperation() },
  };
}

function listOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listLeads',
    tags: [TAG],
    summary: 'List leads',
    description:
      'The leads in your scope that match every filter given, one page at a time. Pages are keyset ' +
      'positions: walking them while leads arrive never repeats nor skips a lead that existed when the ' +
      'walk began.',
    requestParams: { query: LeadListQuerySchema },
    responses: {
      '200': { description: 'One page.', content: { 'application/json': { schema: LeadPageSchema } } },
      '404': clusterNotFound,
      '400': badRequest('query.status.0', 'Invalid option: expected one of "incomplete"|"captured"|…', [
        cursorInvalid,
      ]),
      ...staffResponses,
    },
  };
}

function summaryOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'summarizeLeads',
    tags: [TAG],
    summary: 'Count leads by status, cluster and day',
    description:
      `The leads created in \`[from, to)\` (at most 366 days) in your scope, counted by effective status, ` +
      'by cluster and by calendar day in `tz`.',
    requestParams: { query: LeadSummaryQuerySchema },
    responses: {
      '200': { description: 'The counts.', content: { 'application/json': { schema: LeadSummarySchema } } },
      '400': badRequest('query.tz', 'is not a time zone the database knows'),
      ...staffResponses,
    },
  };
}

function exportOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'exportLeads',
    tags: [TAG],
    summary: 'Export leads as CSV',
    description:
      'The leads the same filters select, as one CSV file (RFC 4180, UTF-8, CRLF, a header row), streamed. ' +
      'A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading ' +
      "`'` so that a spreadsheet shows it instead of running it. Refused when more leads match than " +
      'MESSAGING_EXPORT_MAX_ROWS. Every export is audited.',
    requestParams: { query: LeadExportQuerySchema },
    responses: {
      '200': {
        description: 'The CSV file.',
        headers: z.object({
          'Content-Disposition': z.string().meta({
            description: 'Always an attachment.',
            example: 'attachment; filename="leads-20261124T103000Z.csv"',
          }),
        }),
        content: {
          'text/csv': {
            schema: z.string().meta({
              example: `${LEAD_CSV_COLUMNS.join(',')}\r\n${EXAMPLE_ID},,,manual,Budi Santoso,budi@example.com,,captured,captured,,"Called, no answer",2026-11-20T08:00:00.000Z,2026-11-20T08:00:00.000Z,2026-11-20T08:00:00.000Z\r\n`,
            }),
          },
        },
      },
      '400': badRequest('query.createdFrom', 'must be an ISO 8601 date-time with a time zone offset'),
      '404': clusterNotFound,
      '422': problem([messagingErrors.create('messaging.export.too_large')]),
      ...staffResponses,
    },
  };
}

function detailOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getLead',
    tags: [TAG],
    summary: 'Read a lead',
    description:
      'The lead, the conversation it came from and the changes of its status, with its `ETag`. Every ' +
      'read is audited.',
    requestParams: { path: LeadIdParamsSchema },
    responses: {
      '200': {
        description: 'The lead.',
        headers: z.object({ ETag }),
        content: { 'application/json': { schema: LeadDetailSchema } },
      },
      '400': badRequest('params.id', 'must be a lead id'),
      '404': leadNotFound,
      ...staffResponses,
    },
  };
}

function patchOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'updateLead',
    tags: [TAG],
    summary: 'Change a lead',
    description:
      'Changes the fields given, only if the lead is still at the version `If-Match` names. The contact ' +
      'fields are checked as lead capture checks them and stored in the same form. The computed status ' +
      'follows the fields; a status override is shown instead of it until it is cleared with null.',
    requestParams: { path: LeadIdParamsSchema, header: z.object({ 'If-Match': IfMatch }) },
    requestBody: { required: true, content: { 'application/json': { schema: LeadChangesSchema } } },
    responses: {
      '200': {
        description: 'The lead as changed, with its new `ETag`.',
        headers: z.object({ ETag }),
        content: { 'application/json': { schema: LeadSchema } },
      },
      '400': badRequest('body.email', 'must be a valid email address'),
      '404': leadNotFound,
      '412': problem([messagingErrors.create('messaging.lead.precondition_failed')]),
      '413': problem([coreErrors.create('request.too_large')]),
      '428': problem([messagingErrors.create('messaging.lead.precondition_required')]),
      ...staffResponses,
    },
  };
}

const deprecationHeaders = { Deprecation, Link };

/** Every answer of a legacy route carries the deprecation headers, refusals included. */
function deprecated(response: ZodOpenApiResponseObject): ZodOpenApiResponseObject {
  return { ...response, headers: z.object(deprecationHeaders) };
}

function legacyListOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listLeadsLegacy',
    tags: [LEGACY_TAG],
    deprecated: true,
    summary: 'List the newest leads (legacy)',
    description: 'The newest leads in your scope, without filters or pages. Use `GET /api/v1/leads/v2`.',
    requestParams: { query: LegacyLeadListQuerySchema },
    responses: {
      '200': {
        description: 'The newest leads.',
        headers: z.object(deprecationHeaders),
        content: { 'application/json': { schema: LegacyLeadListSchema } },
      },
      '400': deprecated(badRequest('query.limit', 'must be an integer from 1 to 100')),
      ...staffResponses,
    },
  };
}

function legacyCreateOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'createLeadLegacy',
    tags: [LEGACY_TAG],
    deprecated: true,
    summary: 'Create a lead by hand (legacy)',
    description:
      'A lead staff met outside WhatsApp (`source: manual`), checked as lead capture checks its fields.',
    requestBody: { required: true, content: { 'application/json': { schema: LegacyLeadCreateSchema } } },
    responses: {
      '201': {
        description: 'The lead; `Location` is its v2 address.',
        headers: z.object({
          Location: z.string().meta({ example: `/api/v1/leads/v2/${EXAMPLE_ID}` }),
          ETag,
          ...deprecationHeaders,
        }),
        content: { 'application/json': { schema: LegacyLeadSchema } },
      },
      '400': deprecated(badRequest('body.email', 'must be a valid email address')),
      '404': deprecated(clusterNotFound),
      '413': problem([coreErrors.create('request.too_large')]),
      ...staffResponses,
    },
  };
}
