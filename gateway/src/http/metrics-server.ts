import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { coreErrors } from '../errors/core-errors.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../errors/problem.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

const NOT_FOUND = coreErrors.create('request.not_found', {
  detail: 'This listener serves GET /metrics only',
});

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
    // The same problem document as the public listener's 404, from the same catalogue.
    const requestId = randomUUID();
    const problem = toProblem(NOT_FOUND, requestId);
    res.writeHead(problem.status, { 'Content-Type': PROBLEM_CONTENT_TYPE, [REQUEST_ID_HEADER]: requestId });
    res.end(JSON.stringify(problem));
  });
}
