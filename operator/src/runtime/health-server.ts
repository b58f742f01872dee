/**
 * The operator's HTTP endpoints (operator/deploy/operator.yaml probes port 8081):
 *
 * - `/healthz`: the process answers (liveness; a stuck watch is the watchdog's job, not a restart's).
 * - `/readyz`: 200 when this replica is a standby, or the leader with every informer synced; 503 while the
 *   leader is still listing. A standby is ready on purpose: it is healthy and waiting, and a rollout of the
 *   operator's Deployment must not stall on the replica that is not leading.
 * - `/metrics`: the registry in the Prometheus text format.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  readiness: () => { ready: boolean; detail: string };
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://operator').pathname;
    const text = (code: number, body: string, type = 'text/plain; charset=utf-8'): void => {
      res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'method not allowed\n');
    switch (path) {
      case '/healthz':
        return text(200, 'ok\n');
      case '/readyz': {
        const { ready, detail } = options.readiness();
        return text(ready ? 200 : 503, `${detail}\n`);
      }
      case '/metrics':
        options.registry.metrics().then(
          (body) => text(200, body, options.registry.contentType),
          (error: unknown) => text(500, `${String(error)}\n`),
        );
        return undefined;
      default:
        return text(404, 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
