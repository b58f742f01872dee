import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { coreErrors, type GatewayError, toProblem } from '../../../../gateway/src/plugin-api.ts';
import { messagingErrors } from '../errors.ts';

/**
 * The pieces every operation of the staff API document shares (openapi/document.ts): the problem+json
 * schema, problem responses whose examples the gateway's own error mapper builds from the catalogues (so the
 * document cannot drift from what the API answers), and the responses every gated staff route may give.
 */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const EXAMPLE_REQUEST_ID = '3f6c2d1e-8d0a-4e7b-9a3c-5b2e1f0d4c6a';

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable, dotted error code, e.g. `messaging.lead.not_found`.' }),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Present on `validation.failed`: every problem with the request.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (`application/problem+json`).' });

/** A problem+json response listing `errors` as its examples. */
export function problem(
  errors: readonly GatewayError[],
  headers?: ZodOpenApiResponseObject['headers'],
): ZodOpenApiResponseObject {
  return {
    description: errors.map((e) => `\`${e.code}\`: ${e.title}`).join('; '),
    ...(headers === undefined ? {} : { headers }),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: ProblemSchema,
        examples: Object.fromEntries(
          errors.map((e) => [e.code, { summary: e.title, value: toProblem(e, EXAMPLE_REQUEST_ID) }]),
        ),
      },
    },
  };
}

/** `validation.failed` naming one field, as the route table's schema step answers it. */
export function validationFailed(path: string, message: string): GatewayError {
  return coreErrors.create('validation.failed', {
    detail: '1 problem with the request',
    extensions: { errors: [{ path, message }] },
  });
}

/** 400 for a request that fails its schema (plus any route-specific 400s). */
export function badRequest(path: string, message: string, more: readonly GatewayError[] = []) {
  return problem([validationFailed(path, message), coreErrors.create('request.invalid_text'), ...more]);
}

/** The responses every staff route may give besides its own: unauthenticated (either gate layer, or no staff session) and internal. */
export const staffResponses = {
  '401': problem([
    coreErrors.create('api.auth.unauthenticated'),
    messagingErrors.create('messaging.staff.unauthenticated'),
  ]),
  '500': problem([coreErrors.create('internal')]),
} satisfies Record<string, ZodOpenApiResponseObject>;

/** Output objects stay open: the API may add fields, and generated clients must not break on them. */
export function openResponseObjects(context: {
  jsonSchema: { additionalProperties?: unknown };
  io: string;
}): void {
  if (context.io === 'output' && context.jsonSchema.additionalProperties === false) {
    delete context.jsonSchema.additionalProperties;
  }
}
