import type { ZodOpenApiResponseObject } from 'zod-openapi';
import { coreErrors, type GatewayError, problemResponse } from '../../../../gateway/src/plugin-api.ts';
import { messagingErrors } from '../errors.ts';

/**
 * The pieces every operation of the staff API document shares (openapi/document.ts): problem responses (the
 * core's `problemResponse`, shared with the KYC document, whose examples the gateway's own error mapper
 * builds from the catalogues) and the responses every gated staff route may give.
 */
export const problem = problemResponse;

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
