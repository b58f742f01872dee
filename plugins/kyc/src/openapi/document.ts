import packageJson from '../../../../package.json' with { type: 'json' };
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject } from 'zod-openapi';
import { coreErrors, type GatewayError, problemResponse } from '../../../../gateway/src/plugin-api.ts';
import {
  IDEMPOTENCY_KEY_PATTERN,
  InitiateRequestSchema,
  UsageSchema,
  VerificationIdParamsSchema,
  VerificationSchema,
} from '../domain/api-schemas.ts';
import { kycErrors } from '../errors.ts';

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** Name of the security scheme; the explorer's Authorize dialog shows it. */
export const API_KEY_SCHEME = 'ApiKey';

// Response headers, registered once as components (`header.id`) and referenced by every response.
const RateLimitLimit = z.int().meta({
  description: 'Requests this API key may make per window.',
  example: 600,
  header: { id: 'RateLimit-Limit' },
});
const RateLimitRemaining = z.int().meta({
  description: 'Requests left in the current window.',
  example: 599,
  header: { id: 'RateLimit-Remaining' },
});
const RateLimitReset = z.int().meta({
  description: 'Seconds until the current window ends.',
  example: 42,
  header: { id: 'RateLimit-Reset' },
});
const RateLimitPolicy = z.string().meta({
  description: 'The limit and its window in seconds (`limit;w=seconds`).',
  example: '600;w=60',
  header: { id: 'RateLimit-Policy' },
});
const RetryAfter = z.int().meta({
  description: 'Seconds to wait before the next request with this API key.',
  example: 42,
  header: { id: 'Retry-After' },
});

/** Sent on every response to a request whose API key was accepted (`routes/api-key-authentication.ts`). */
const rateLimitHeaders = {
  'RateLimit-Limit': RateLimitLimit,
  'RateLimit-Remaining': RateLimitRemaining,
  'RateLimit-Reset': RateLimitReset,
  'RateLimit-Policy': RateLimitPolicy,
};

/**
 * Documentation-only: the route checks this header against the same pattern by hand
 * (`routes/tenant-routes.ts`), so the document and the check cannot disagree on what a valid key is.
 */
const IdempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .meta({
    description:
      'Makes a retried initiation safe: for 24 hours the same key with the same body answers the first ' +
      'response again (with `Idempotent-Replayed: true`) instead of starting a second verification; the ' +
      'same key with a different body is refused with 422 `kyc.idempotency_mismatch`. 1 to 255 printable ' +
      'ASCII characters.',
    example: 'order-1842-kyc',
  });

const problem = problemResponse;

function validationFailed(path: string, message: string): GatewayError {
  return coreErrors.create('validation.failed', {
    detail: '1 problem with the request',
    extensions: { errors: [{ path, message }] },
  });
}

const unauthorized = problem([kycErrors.create('kyc.api_key.invalid')]);
const rateLimited = problem(
  [kycErrors.create('kyc.rate_limited', { detail: 'At most 600 requests per 60 s for this API key.' })],
  z.object({ 'Retry-After': RetryAfter, ...rateLimitHeaders }),
);
const internal = problem([coreErrors.create('internal')]);

/**
 * The public KYC API as an OpenAPI 3.1 document, built from the same zod schemas that validate requests
 * (README, "API document and explorer"). Pure: the routes build it once and serve the JSON.
 * The admin routes under /api/v1/admin/kyc are internal and stay out.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Gatehouse KYC API',
        version: packageJson.version,
        description:
          'Identity verification for API-key tenants. Authenticate every call with your key in the ' +
          '`X-Api-Key` header; sandbox keys (`kyc_sandbox_…`) never consume quota and drive outcomes from ' +
          'the `subjectExternalRef` suffix (`-approve`, `-reject`, `-review`). Errors are RFC 9457 ' +
          '`application/problem+json` with a stable `code`.',
      },
      servers: [{ url: '/' }],
      security: [{ [API_KEY_SCHEME]: [] }],
      tags: [
        { name: 'Verifications', description: 'Start a verification and follow it to its outcome.' },
        { name: 'Usage', description: "Your key's tenant consumption in the current quota period." },
      ],
      components: {
        securitySchemes: {
          [API_KEY_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description:
              'Shown once when the key is created. `kyc_sandbox_…` keys belong to sandbox tenants, ' +
              '`kyc_live_…` keys to live ones.',
          },
        },
      },
      paths: {
        '/api/v1/kyc/initiate': { post: initiateOperation() },
        '/api/v1/kyc/usage': { get: usageOperation() },
        '/api/v1/kyc/{id}': { get: statusOperation() },
      },
    },
    { override: openResponseObjects },
  );
}

/** POST /api/v1/kyc/initiate: start a verification. */
function initiateOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'initiateVerification',
    tags: ['Verifications'],
    summary: 'Start a verification',
    description:
      'Starts a verification of one subject. A live tenant consumes one unit of its billable ' +
      'quota; a sandbox tenant never does.',
    requestParams: { header: z.object({ 'Idempotency-Key': IdempotencyKeyHeader.optional() }) },
    requestBody: {
      required: true,
      content: { 'application/json': { schema: InitiateRequestSchema } },
    },
    responses: {
      '201': {
        description: 'The verification was started (or, with `Idempotent-Replayed`, replayed).',
        headers: z.object({
          Location: z.string().meta({
            description: 'Where to read the verification.',
            example: '/api/v1/kyc/0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77',
          }),
          'Idempotent-Replayed': z
            .enum(['true'])
            .optional()
            .meta({ description: 'Present when this answers an earlier request with the same key.' }),
          ...rateLimitHeaders,
        }),
        content: { 'application/json': { schema: VerificationSchema } },
      },
      '400': problem([
        validationFailed('body.subjectExternalRef', 'Too small: expected string to have >=1 characters'),
        coreErrors.create('request.malformed_json'),
        kycErrors.create('kyc.idempotency_key.invalid'),
      ]),
      '401': unauthorized,
      '402': problem([kycErrors.create('kyc.quota_exhausted')]),
      '413': problem([coreErrors.create('request.too_large')]),
      '422': problem([kycErrors.create('kyc.idempotency_mismatch')]),
      '429': rateLimited,
      '500': internal,
    },
  };
}

/** GET /api/v1/kyc/usage: the quota usage of the key's tenant. */
function usageOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getUsage',
    tags: ['Usage'],
    summary: 'Read the quota usage of your tenant',
    responses: {
      '200': {
        description: 'Consumption in the current quota period.',
        headers: z.object(rateLimitHeaders),
        content: { 'application/json': { schema: UsageSchema } },
      },
      '401': unauthorized,
      '429': rateLimited,
      '500': internal,
    },
  };
}

/** GET /api/v1/kyc/{id}: read a verification. */
function statusOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getVerification',
    tags: ['Verifications'],
    summary: 'Read a verification',
    description: 'The verification with its status and complete history. Only your own tenant’s.',
    requestParams: { path: VerificationIdParamsSchema },
    responses: {
      '200': {
        description: 'The verification.',
        headers: z.object(rateLimitHeaders),
        content: { 'application/json': { schema: VerificationSchema } },
      },
      '400': problem([validationFailed('params.id', 'must be a verification id')]),
      '401': unauthorized,
      '404': problem([kycErrors.create('kyc.verification.not_found')]),
      '429': rateLimited,
      '500': internal,
    },
  };
}

/**
 * zod renders a plain `z.object` in a response as `additionalProperties: false`, a promise that no field
 * is ever added: clients that validate responses would break on the first new one. Responses stay open;
 * only request bodies declared with `z.strictObject` (which validation enforces) stay closed.
 */
function openResponseObjects(context: { jsonSchema: { additionalProperties?: unknown }; io: string }): void {
  if (context.io === 'output' && context.jsonSchema.additionalProperties === false) {
    delete context.jsonSchema.additionalProperties;
  }
}
