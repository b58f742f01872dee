import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { RouteTable } from '../plugin/route-table.ts';
import { PIPELINE_SLOTS, type PipelineSlot } from '../plugin/types.ts';
import type { AccessLog } from './access-log.ts';
import { jsonBody } from './body.ts';
import { installClientAddress } from './client-address.ts';
import { compose } from './compose.ts';
import { crossOrigin } from './cross-origin.ts';
import { dispatch, errorHandler } from './error-handler.ts';
import { expressClasses } from './express-classes.ts';
import type { HttpMetrics } from './http-metrics.ts';
import { requestContext } from './request-context.ts';
import { securityHeaders } from './security-headers.ts';

/**
 * The request processing order, exactly (ADR 0003): every request passes the same nine steps, and the
 * gates (5-7) know the route before it runs because step 4 matched it.
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

export interface PipelineDeps {
  routes: RouteTable;
  slots: ReadonlyMap<PipelineSlot, readonly RequestHandler[]>;
  logger: Logger;
  accessLog: AccessLog;
  metrics: HttpMetrics;
  corsOrigins: readonly string[];
}

/**
 * The Express application: its settings and the request/response API handlers use. Routing is not
 * Express's (see compose.ts); pass `expressClasses(app)` to `http.createServer`.
 */
export function createExpressApp(trustProxy: boolean | number | string): Express {
  const app = express();
  app.disable('x-powered-by');
  // No ETag on API responses: hashing every body costs more than the rare conditional GET saves.
  app.set('etag', false);
  // Client IPs for audit rows and rate limits come from X-Forwarded-For only behind a trusted proxy.
  app.set('trust proxy', trustProxy);
  // ...and only entries that are addresses: they are stored in inet columns.
  installClientAddress(app);
  return app;
}

/** Assembles the pipeline; returns the request listener for node:http. */
export function buildPipeline(
  app: Express,
  deps: PipelineDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  const steps: Record<
    Exclude<(typeof PIPELINE_ORDER)[number], 'error-handler'>,
    readonly RequestHandler[]
  > = {
    'security-headers': [securityHeaders()],
    cors: [crossOrigin(deps.corsOrigins)],
    'json-body': [jsonBody()],
    'request-context': [
      requestContext({ routes: deps.routes, accessLog: deps.accessLog, metrics: deps.metrics }),
    ],
    'gate.layer1': deps.slots.get('gate.layer1') ?? [],
    'gate.layer2': deps.slots.get('gate.layer2') ?? [],
    'audit.sensitive': deps.slots.get('audit.sensitive') ?? [],
    'route-handler': [dispatch],
  };
  const chain = PIPELINE_ORDER.flatMap((name) => (name === 'error-handler' ? [] : steps[name]));
  return compose(app, chain, errorHandler(deps.logger), expressClasses(app));
}
