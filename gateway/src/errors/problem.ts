import { coreErrors } from './core-errors.ts';
import { isGatewayError, type GatewayError } from './gateway-error.ts';

/** The RFC 9457 body every 4xx/5xx carries, a shape clients rely on (docs/errors.md). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

/** `type` is a URN built from the code: stable, unique per code, and not a URL that pretends to resolve. */
export function problemType(code: string): string {
  return `urn:gatehouse:problem:${code}`;
}

/**
 * Errors thrown by body-parser (express.json) carry a `type` string; these are the ones a client can cause.
 * Anything else from the parser is our bug and becomes `internal`.
 */
const BODY_PARSER_ERRORS: Record<string, () => GatewayError> = {
  'entity.parse.failed': () => coreErrors.create('request.malformed_json'),
  'entity.too.large': () => coreErrors.create('request.too_large'),
  'encoding.unsupported': () => coreErrors.create('request.unsupported_encoding'),
  'charset.unsupported': () => coreErrors.create('request.unsupported_encoding'),
  'request.aborted': () => coreErrors.create('request.bad_request', { detail: 'The request was aborted' }),
  'request.size.invalid': () =>
    coreErrors.create('request.bad_request', {
      detail: 'The request body length does not match Content-Length',
    }),
  'entity.verify.failed': () => coreErrors.create('request.bad_request'),
};

/** Maps any thrown value to the GatewayError the client will see; unknown errors become a bare `internal`. */
export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  if (typeof err === 'object' && err !== null && 'type' in err && typeof err.type === 'string') {
    const mapped = BODY_PARSER_ERRORS[err.type];
    if (mapped) return mapped();
  }
  return coreErrors.create('internal');
}

/** Builds the problem+json body. Only catalogue data and explicit extensions go out: never a stack or cause. */
export function toProblem(error: GatewayError, requestId: string): ProblemDetails {
  return {
    ...error.extensions,
    type: problemType(error.code),
    title: error.title,
    status: error.status,
    detail: error.detail,
    code: error.code,
    requestId,
  };
}
