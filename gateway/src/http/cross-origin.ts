import cors from 'cors';
import type { RequestHandler } from 'express';
import { SESSION_HEADER } from '../gate/gate.ts';
import { SIGNATURE_HEADER } from '../gate/hmac.ts';
import { requestIdFor } from './request-context.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

/** Headers a browser client may send cross-origin, and those it may read back. */
const ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  REQUEST_ID_HEADER,
  displayName(SIGNATURE_HEADER),
  displayName(SESSION_HEADER),
  'X-Api-Key',
  'Idempotency-Key',
];
const EXPOSED_HEADERS = [
  REQUEST_ID_HEADER,
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

/**
 * Pipeline step 2: cross-origin handling with an allow-list (CORS_ORIGINS), by the `cors` package.
 *
 * Browsers send `Origin` on every cross-origin request, so a request without it is same-origin or not
 * from a browser: it needs no CORS headers, only `Vary: Origin`, so a shared cache never serves a
 * response made for one origin to another. Skipping `cors` for those keeps server-to-server calls (the
 * bulk of a gateway's traffic) free of headers nobody reads.
 */
export function crossOrigin(allowedOrigins: readonly string[]): RequestHandler {
  const handle = cors({
    origin: [...allowedOrigins],
    credentials: true,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (req, res, next) => {
    if (req.headers.origin === undefined) {
      res.setHeader('Vary', 'Origin');
      next();
      return;
    }
    // A preflight is answered here, before step 4 gives requests their id; it still carries one, as every
    // answer does (docs/errors.md, "Rules the mapper enforces").
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader(REQUEST_ID_HEADER, requestIdFor(req));
    }
    handle(req, res, next);
  };
}

/** A header name as it is usually written, `x-forwarded-session` → `X-Forwarded-Session`. */
function displayName(header: string): string {
  return header.replace(
    /(^|-)([a-z])/g,
    (_match, dash: string, letter: string) => dash + letter.toUpperCase(),
  );
}
