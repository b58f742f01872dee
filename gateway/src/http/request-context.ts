import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import type { RouteTable } from '../plugin/route-table.ts';
import type { AccessLog } from './access-log.ts';
import { UNMATCHED_ROUTE, type HttpMetrics } from './http-metrics.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

/**
 * A client's request id is kept when it is at most 128 safe characters, else a new id is made
 * (docs/errors.md, "Rules the mapper enforces"): it is echoed in headers, logs and audit rows.
 */
const SAFE_REQUEST_ID = /^[\w.:@+=~-]{1,128}$/;

export function requestIdFor(req: Request): string {
  const incoming = req.headers[REQUEST_ID_HEADER.toLowerCase()];
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Pipeline step 4: request id and structured logging. Also matches the route (once per request), so the gates
 * know whether it is exempt and logs, metrics and audit rows carry the route pattern. One log line and one
 * histogram observation per request, when the response closes.
 */
export function requestContext(deps: {
  routes: RouteTable;
  accessLog: AccessLog;
  metrics: HttpMetrics;
}): RequestHandler {
  const { routes, accessLog, metrics } = deps;

  // One listener function for all requests (no closure per request): it finds its request via `this.req`.
  function onClose(this: Response): void {
    const req = this.req;
    const seconds = (performance.now() - (req.gatehouseStartedAt ?? 0)) / 1000;
    const state = req.gatehouse;
    const route = state.route ? state.route.pattern : UNMATCHED_ROUTE;
    metrics.observe(req.method, route, this.statusCode, seconds);
    if (!accessLog.enabled) return;
    accessLog.write({
      reqId: state.id,
      method: req.method,
      route,
      // The raw path only for unmatched requests (to see what clients probe); never the query string,
      // which may carry tokens (e.g. hub.verify_token).
      path: state.route ? undefined : req.path,
      status: this.statusCode,
      durationMs: Math.round(seconds * 1e5) / 100,
      aborted: !this.writableFinished,
    });
  }

  return (req, res, next) => {
    const id = requestIdFor(req);
    res.setHeader(REQUEST_ID_HEADER, id);
    const match = routes.find(req.method, req.url);
    if (match) req.params = match.params as Record<string, string>;
    req.gatehouse = { id, route: match ? match.route : null, hasQuery: match ? match.hasQuery : false };
    req.gatehouseStartedAt ??= performance.now();
    res.on('close', onClose);
    if (req.bodyError !== undefined) {
      next(req.bodyError);
      return;
    }
    next();
  };
}
