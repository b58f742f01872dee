import { z } from 'zod';
import type { ZodOpenApiResponseObject } from 'zod-openapi';
import type { GatewayError } from '../errors/gateway-error.ts';
import { toProblem } from '../errors/problem.ts';

/**
 * The problem+json answer in the OpenAPI documents plugins generate from their route schemas (the KYC API's,
 * the staff API's): one schema of the body every error has (docs/errors.md, "The problem document"), and
 * responses whose examples the gateway's own error mapper builds from the catalogues, so a document cannot
 * drift from what the API answers.
 */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const EXAMPLE_REQUEST_ID = '3f6c2d1e-8d0a-4e7b-9a3c-5b2e1f0d4c6a';

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    code: z.string().meta({ description: 'Stable, dotted error code, e.g. `validation.failed`.' }),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'Present on `validation.failed`: every problem with the request.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (`application/problem+json`).' });

/** A problem+json response whose examples are `errors`, as the gateway answers them. */
export function problemResponse(
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
