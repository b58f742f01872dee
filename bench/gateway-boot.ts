/**
 * `npm run bench:gateway-boot`: how long a gateway process takes from spawn until `GET /health` answers 200,
 * and from SIGTERM (idle) until it has exited. These are the gateway's own shares of a rollback on a cluster
 * (operator/README.md, "Rollback in under 30 seconds"): a new pod's container starts the process the image
 * runs (`node app/cli.ts serve`), the readiness probe waits for it, and the old pods drain and stop.
 *
 * Each boot is the real CLI as its own process with production settings (`APP_ENV=production`, all four
 * plugins, `API_AUTH_MODE=disabled` as after a rollback, `LOG_LEVEL=info`), on one PostgreSQL shared by the
 * run (the bench's embedded one, or BENCH_DATABASE_URL) as a pod uses its database server. The first boot
 * migrates an empty database and is reported apart; the others meet a migrated one, as a rollback does.
 * Ready is the `gateway listening` log line (written once both listeners are bound) followed by a 200 from
 * `/health`: event-driven, no polling.
 *
 * Output: JSON on stdout. Options (env): BENCH_BOOTS (default 5), BENCH_DATABASE_URL.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawnGateway, type GatewayProcess } from '../test/support/process.ts';
import { summarise } from './lib/latency.ts';
import { startBenchPostgres } from './lib/postgres.ts';

const BOOTS = Number(process.env.BENCH_BOOTS ?? 5);
const root = fileURLToPath(new URL('..', import.meta.url));
const LOG_FILE = path.join(root, 'bench/out/gateway-boot.log');

interface Boot {
  /** spawn → `/health` answered 200. */
  readyMs: number;
  /** SIGTERM → the process exited (nothing in flight to drain). */
  stopMs: number;
  log: string;
}

function gatewayEnv(databaseUrl: string): Record<string, string> {
  return {
    APP_ENV: 'production',
    API_AUTH_MODE: 'disabled',
    AUTH_MODE: 'local',
    INTERNAL_API_SECRET: 'bench-internal-secret-0123456789abcdef',
    AUTH_SECRET: 'bench-auth-secret-0123456789abcdef',
    GATEWAY_PLUGINS: 'auth,kyc,messaging,realtime',
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  };
}

/** The gateway's address, from its `gateway listening` log line. */
function listeningUrl(gateway: GatewayProcess): string {
  const line = gateway
    .stdout()
    .split('\n')
    .find((text) => text.includes('"msg":"gateway listening"'));
  return (JSON.parse(line ?? '{}') as { url: string }).url;
}

async function boot(databaseUrl: string): Promise<Boot> {
  const spawnedAt = performance.now();
  const gateway = spawnGateway({ args: ['serve'], env: gatewayEnv(databaseUrl) });
  try {
    await gateway.waitForOutput(/"msg":"gateway listening"/);
    const health = await fetch(`${listeningUrl(gateway)}/health`);
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);
    const readyMs = performance.now() - spawnedAt;
    const stoppingAt = performance.now();
    gateway.child.kill('SIGTERM');
    await gateway.exited;
    return { readyMs, stopMs: performance.now() - stoppingAt, log: gateway.stdout() + gateway.stderr() };
  } finally {
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
      gateway.child.kill('SIGKILL');
      await gateway.exited;
    }
  }
}

const postgres = await startBenchPostgres();
const loadBefore = loadavg();
try {
  const boots: Boot[] = [];
  for (let index = 0; index <= BOOTS; index += 1) boots.push(await boot(postgres.url));
  await mkdir(path.dirname(LOG_FILE), { recursive: true });
  await writeFile(LOG_FILE, boots.map((run) => run.log).join(''));
  const [first, ...rest] = boots;
  const round2 = (value: number): number => Math.round(value * 100) / 100;
  const report = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      loadAverage: { before: loadBefore.map(round2), after: loadavg().map(round2) },
    },
    settings: {
      boots: BOOTS,
      gateway:
        '`node app/cli.ts serve`, APP_ENV=production, the four plugins, API_AUTH_MODE=disabled, LOG_LEVEL=info',
      database: process.env.BENCH_DATABASE_URL
        ? 'BENCH_DATABASE_URL'
        : 'the bench embedded PostgreSQL, shared',
    },
    'first boot, empty database (migrations)': { readyMs: Math.round(first?.readyMs ?? Number.NaN) },
    'spawn → /health 200, migrated database': summarise(rest.map((run) => run.readyMs)),
    'SIGTERM → exited, idle': summarise(rest.map((run) => run.stopMs)),
    log: path.relative(root, LOG_FILE),
  };
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} finally {
  await postgres.stop();
}
