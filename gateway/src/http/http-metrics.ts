import { Histogram, type Registry } from 'prom-client';

/** The label for requests that matched no route, so raw paths never become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface HttpMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

/**
 * The name of the request-duration histogram, a contract with the dashboards and alerts built on it
 * (docs/api-auth-gate.md, "What to watch"). Renaming it is a breaking change.
 */
export const HTTP_DURATION_METRIC = 'http_request_duration_seconds';

/**
 * `http_request_duration_seconds{method,route,status_code}`, `route` being the route pattern, never the raw
 * path, so the series stay few and no client-chosen text reaches the metrics (docs/api-auth-gate.md, "What to
 * watch"). Label children are cached per (method, route, status): prom-client otherwise hashes the label
 * object on every observe. The cache is bounded by the route table times the status codes in use.
 */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const histogram = new Histogram({
    name: HTTP_DURATION_METRIC,
    help: 'Duration of HTTP requests on the public port, by route pattern',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const children = new Map<string, { observe(value: number): void }>();
  return {
    observe(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (child === undefined) {
        child = histogram.labels(method, route, String(status));
        children.set(key, child);
      }
      child.observe(seconds);
    },
  };
}
