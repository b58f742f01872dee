import { defineErrors } from './catalogue.ts';

/**
 * Errors raised by the core pipeline itself. Every code here is documented in docs/errors.md; a test
 * fails when one is not.
 */
export const coreErrors = defineErrors({
  'request.malformed_json': { status: 400, title: 'The request body is not valid JSON' },
  'request.bad_request': { status: 400, title: 'The request could not be read' },
  'request.too_large': { status: 413, title: 'The request body exceeds the size limit' },
  'request.unsupported_encoding': { status: 415, title: 'The request body encoding is not supported' },
  'request.corrupt_encoding': { status: 400, title: 'The compressed request body could not be decompressed' },
  'request.too_deep': { status: 400, title: 'The JSON body is nested too deeply' },
  'request.invalid_text': { status: 400, title: 'The request contains text that cannot be stored' },
  'request.malformed': { status: 400, title: 'The request is not valid HTTP/1.1' },
  'request.uri_too_long': { status: 414, title: 'The request target is too long' },
  'request.headers_too_large': { status: 431, title: 'The request head is too large' },
  'request.timeout': { status: 408, title: 'The request took too long to arrive' },
  'request.not_found': { status: 404, title: 'No route matches this request' },
  'validation.failed': { status: 400, title: 'The request did not pass validation' },
  'api.auth.unauthenticated': { status: 401, title: 'Authentication required' },
  'gateway.upstream_unavailable': { status: 502, title: 'The upstream service is unavailable' },
  'gateway.upstream_timeout': { status: 504, title: 'The upstream service did not answer in time' },
  'service.unavailable': { status: 503, title: 'The service is temporarily unavailable' },
  internal: { status: 500, title: 'Internal server error' },
});
