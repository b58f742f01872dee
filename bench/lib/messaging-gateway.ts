import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, type BenchProcess } from './processes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The gate's layer-1 secret of the messaging benchmarks' gateways: their clients sign requests with it. */
export const BENCH_INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdef';

export interface SendApi {
  url: string;
  /** Replies the gateway has sent so far. */
  count(): number;
  close(): Promise<void>;
}

/** The provider's send API for the messaging benchmarks: accepts every reply at once, on loopback. */
export async function startSendApi(): Promise<SendApi> {
  let sent = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      sent++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"messages":[{"id":"wamid.out.${sent}"}]}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    count: () => sent,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The real gateway as the messaging benchmarks run it: its own process, production settings, the auth and
 * messaging plugins, the bench's PostgreSQL, replies sent to `sendApi`, logs to `bench/out/<name>.log`.
 */
export async function startMessagingProcess(options: {
  name: string;
  databaseUrl: string;
  sendApi: Pick<SendApi, 'url'>;
  port?: number;
  /** Settings on top of the production ones. */
  env?: Record<string, string>;
}): Promise<BenchProcess> {
  return startProcess({
    name: options.name,
    args: [path.join(root, 'app/cli.ts'), 'serve'],
    env: {
      APP_ENV: 'production',
      API_AUTH_MODE: 'enforce',
      AUTH_MODE: 'local',
      INTERNAL_API_SECRET: BENCH_INTERNAL_SECRET,
      AUTH_SECRET: 'bench-auth-secret-0123456789abcdef',
      GATEWAY_PLUGINS: 'auth,messaging',
      DATABASE_URL: options.databaseUrl,
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      WEBHOOK_VERIFY_TOKEN: 'bench',
      MESSAGING_API_BASE_URL: options.sendApi.url,
      MESSAGING_API_TOKEN: 'bench',
      ...options.env,
    },
    logFile: path.join(root, `bench/out/${options.name}.log`),
    port: options.port ?? (await freePort()),
    readyPath: '/health',
  });
}
