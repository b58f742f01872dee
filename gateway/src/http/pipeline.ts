import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Logger } from 'pino';
import type { RouteTable } from '../plugin/route-table.ts';
import { PIPELINE_SLOTS, type PipelineSlot } from '../plugin/types.ts';
import { jsonBody } from './body.ts';
import { dispatch, errorHandler } from './error-handler.ts';
import type { HttpMetrics } from './http-metrics.ts';
import { requestContext } from './request-context.ts';

/**
 * The request processing order of document 002, exactly:
 *
 *   1 security headers → 2 CORS → 3 JSON body (50 MB, raw bytes kept) → 4 request id + logging
 *   → 5 gate layer 1 → 6 gate layer 2 → 7 sensitive-access audit → 8 route handler → 9 error handler
 *
 * Steps 5-7 are slots filled through `hooks.pipeline(slot, handler)`; an empty slot adds nothing.
 */
export const PIPELINE_ORDER = [
  'security-headers',
  'cors',
  'json-body',
  'request-context',
  ...PIPELINE_SLOTS,
  'route-handler',
  'error-handler',
] as const;

/** Headers a browser client may send cross-origin, and those it may read back. */
const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Request-Id',
  'X-Internal-Signature',
  'X-Forwarded-Session',
  'X-Api-Key',
  'Idempotency-Key',
];
const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'Retry-After',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
];

export interface PipelineDeps {
  routes: RouteTable;
  slots: ReadonlyMap<PipelineSlot, readonly RequestHandler[]>;
  logger: Logger;
  metrics: HttpMetrics;
  corsOrigins: readonly string[];
  trustProxy: boolean | number | string;
}

export function buildApp(deps: PipelineDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag on API responses: hashing every body costs more than the rare conditional GET saves.
  app.set('etag', false);
  // Client IPs for audit rows and rate limits come from X-Forwarded-For only behind a trusted proxy.
  app.set('trust proxy', deps.trustProxy);

  app.use(helmet()); // 1
  app.use(
    cors({
      origin: [...deps.corsOrigins],
      credentials: true,
      allowedHeaders: CORS_ALLOWED_HEADERS,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: 600,
    }),
  ); // 2
  app.use(jsonBody()); // 3
  app.use(requestContext(deps)); // 4
  for (const slot of PIPELINE_SLOTS) {
    for (const handler of deps.slots.get(slot) ?? []) app.use(handler); // 5, 6, 7
  }
  app.use(dispatch); // 8
  app.use(errorHandler(deps.logger)); // 9
  return app;
}
