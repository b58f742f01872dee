import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { RouteTable } from '../plugin/route-table.ts';
import { UNMATCHED_ROUTE, type HttpMetrics } from './http-metrics.ts';
import './request-state.ts';

/** DECISIONS.md, "Request id": at most 128 safe characters, else a new id is made. */
const SAFE_REQUEST_ID = /^[\w.:@+=~-]{1,128}$/;

export function requestIdFor(req: Request): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * 002 step 4: request id and structured logging. Also matches the route (once per request), so the
 * gates know whether it is exempt and logs, metrics and audit rows carry the route pattern.
 * One log line and one histogram observation per request, when the response closes.
 */
export function requestContext(deps: {
  routes: RouteTable;
  logger: Logger;
  metrics: HttpMetrics;
}): RequestHandler {
  const { routes, logger, metrics } = deps;
  return (req, res, next) => {
    const id = requestIdFor(req);
    res.setHeader('X-Request-Id', id);
    const match = routes.find(req.method, req.url);
    if (match) req.params = match.params as Record<string, string>;
    req.gatehouse = { id, route: match ? match.route : null };
    const startedAt = req.gatehouseStartedAt ?? performance.now();
    res.once('close', () => logAndMeasure(req, res, logger, metrics, startedAt));
    if (req.bodyError !== undefined) {
      next(req.bodyError);
      return;
    }
    next();
  };
}

function logAndMeasure(
  req: Request,
  res: Response,
  logger: Logger,
  metrics: HttpMetrics,
  startedAt: number,
): void {
  const seconds = (performance.now() - startedAt) / 1000;
  const state = req.gatehouse;
  const route = state.route ? state.route.pattern : UNMATCHED_ROUTE;
  metrics.observe(req.method, route, res.statusCode, seconds);
  if (!logger.isLevelEnabled('info')) return;
  logger.info(
    {
      reqId: state.id,
      method: req.method,
      route,
      // The raw path only for unmatched requests (to see what clients probe); never the query string,
      // which may carry tokens (e.g. hub.verify_token).
      ...(state.route ? {} : { path: req.path }),
      status: res.statusCode,
      durationMs: Math.round(seconds * 1e5) / 100,
      ...(res.writableFinished ? {} : { aborted: true }),
    },
    'request',
  );
}
