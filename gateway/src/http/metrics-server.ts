import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { PROBLEM_CONTENT_TYPE, problemType } from '../errors/problem.ts';

/**
 * Prometheus exposition on its own listener (docs/configuration.md, `METRICS_PORT`): never on the public
 * port, so internals are not exposed to API clients and scraping does not compete with the API's pipeline.
 */
export function createMetricsServer(registry: Registry): Server {
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) {
      registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': registry.contentType });
          res.end(text);
        },
        () => {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end('metrics collection failed\n');
        },
      );
      return;
    }
    const requestId = randomUUID();
    res.writeHead(404, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'X-Request-Id': requestId });
    res.end(
      JSON.stringify({
        type: problemType('request.not_found'),
        title: 'No route matches this request',
        status: 404,
        detail: 'This listener serves GET /metrics only',
        code: 'request.not_found',
        requestId,
      }),
    );
  });
}
