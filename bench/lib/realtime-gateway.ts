import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, type BenchProcess } from './processes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The Auth.js secret the bench's gateways verify session tokens with; the clients mint theirs with it. */
export const BENCH_AUTH_SECRET = 'bench-auth-secret-0123456789abcdef';
/** The cookie name Auth.js uses without HTTPS: the salt of the session token's key. */
export const BENCH_SESSION_COOKIE = 'authjs.session-token';

export interface RealtimeGatewayProcess extends BenchProcess {
  /** The Prometheus listener (`METRICS_PORT`): event-loop lag, the COMMIT→emit histogram. */
  metricsUrl: string;
}

/**
 * The real gateway as `bench:realtime` runs it: its own process, production settings (`APP_ENV=production`,
 * `API_AUTH_MODE=enforce`), the auth, messaging and realtime plugins with their default settings, the bench's
 * PostgreSQL, logs to `bench/out/<name>.log`. The messaging worker is made idle (the bench writes rows the
 * worker has nothing to do with): only realtime work is measured.
 */
export async function startRealtimeGateway(options: {
  name: string;
  databaseUrl: string;
}): Promise<RealtimeGatewayProcess> {
  const metricsPort = await freePort();
  const gateway = await startProcess({
    name: options.name,
    args: [path.join(root, 'app/cli.ts'), 'serve'],
    env: {
      APP_ENV: 'production',
      API_AUTH_MODE: 'enforce',
      AUTH_MODE: 'local',
      INTERNAL_API_SECRET: 'bench-internal-secret-0123456789abcdef',
      AUTH_SECRET: BENCH_AUTH_SECRET,
      GATEWAY_PLUGINS: 'auth,messaging,realtime',
      DATABASE_URL: options.databaseUrl,
      HOST: '127.0.0.1',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      MESSAGING_API_BASE_URL: 'http://127.0.0.1:9',
      MESSAGING_WORKER_INTERVAL_MS: '60000',
    },
    logFile: path.join(root, `bench/out/${options.name}.log`),
    port: await freePort(),
    readyPath: '/health',
  });
  return { ...gateway, metricsUrl: `http://127.0.0.1:${metricsPort}` };
}
