/**
 * `npm run bench:realtime` (target: bench/README.md, "Targets"): COMMIT→client latency of the realtime
 * plugin, reported as Supabase reports Realtime's (median, p95, p99), with throughput and the gateway's
 * memory, on real processes on this machine.
 *
 * Setup: the bench's PostgreSQL, migrated, seeded with 500 clusters of 10 agents and 2 conversations each.
 * The gateway is the real CLI (`node app/cli.ts serve`) with production settings (APP_ENV=production,
 * API_AUTH_MODE=enforce, plugins auth, messaging and realtime with their defaults, logs to bench/out/).
 * 5,000 sockets (socket.io-client over WebSockets) are opened by 4 client processes, each socket an agent with
 * its own Auth.js session token joining its cluster's room: 10 sockets per cluster.
 *
 * Load: the bench process commits 1,000 messages/s (one 10-row INSERT into messaging_messages every 10 ms,
 * over 4 connections), each message in a conversation of the next cluster round-robin; the realtime trigger
 * turns each row into a `message.created` event for the conversation's and the cluster's rooms. One event
 * reaches the 10 sockets of its cluster: 1,000 events/s are 10,000 socket deliveries/s.
 *
 * Measured, for every delivery of a message committed after the warm-up: the time from its COMMIT returning
 * to the writer to its `event` arriving at the socket, both read as `performance.timeOrigin +
 * performance.now()` (one system clock for all processes). The commit time is taken when the writer sees
 * COMMIT's answer, which can come after the NOTIFY has left the server: a few latencies may be negative and
 * are reported as they are. On a busy machine the writer also sees its COMMITs late, which shortens that
 * latency: the same deliveries are also timed from the event's `createdAt` (the trigger's clock_timestamp(),
 * just before COMMIT, carried in the event), which no process's scheduling delays. Every message committed
 * (warm-up included) is owed to every socket of its cluster: what did not arrive is lost; what arrived twice
 * is a duplicate.
 *
 * Baselines in the same run: a bare socket.io server (bench/lib/realtime-bare-server.ts) fed the same
 * commits by the same writer to the same 5,000 sockets, with the gateway's latency over it (a ratio holds on
 * any machine where absolute timings do not: bench/README.md, "Targets"); and in every scenario a bare `pg` client
 * LISTENing on the triggers' channel, COMMIT→NOTIFY: the floor under any realtime feature driven by
 * PostgreSQL.
 * Also: the gateways' resident memory (VmRSS) idle with the sockets connected and at the end of the load,
 * CPU seconds per process over the measured window, each gateway's event-loop delay and the plugin's own
 * trigger→emit histogram.
 *
 * Scenarios: one gateway process; two replicas on the same database with the sockets split evenly (each
 * cluster's agents on both, so every event is delivered by both); the bare socket.io server.
 *
 * Output: JSON on stdout, a table on stderr; exit status 1 when a gateway scenario misses the target (p95 ≤
 * 50 ms, no message lost, every socket connected) or its writer could not hold the rate (a machine too busy
 * to say). Options (env): BENCH_SECONDS (measured, default 20), BENCH_WARMUP_SECONDS (5),
 * BENCH_RATE (messages/s, 1000), BENCH_ROWS_PER_TRANSACTION (10), BENCH_WRITER_CONNECTIONS (4),
 * BENCH_SOCKETS (5000), BENCH_CLUSTERS (500), BENCH_CLIENT_PROCESSES (4), BENCH_CONNECT_CONCURRENCY
 * (handshakes in flight per client process, 25), BENCH_IDLE_SECONDS (5), BENCH_SCENARIOS ("1,2,bare": a
 * number is that many gateway replicas), BENCH_PGSS=1 (load pg_stat_statements and show PostgreSQL's
 * costliest statements of each measured window), BENCH_DATABASE_URL.
 */
import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';
import { table, type Percentiles } from './lib/realtime-report.ts';
import { runScenario, type ScenarioSettings } from './lib/realtime-scenario.ts';
import type { ScenarioReport } from './lib/realtime-scenario-report.ts';
import { seedRouting, type Routing } from './lib/realtime-writer.ts';
import { Teardown } from './lib/teardown.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TARGET = { p95Ms: 50, lost: 0 };

const settings = {
  /** "1" and "2": that many gateway replicas; "bare": the bare socket.io baseline. */
  scenarios: (process.env.BENCH_SCENARIOS ?? '1,2,bare').split(','),
  sockets: env('BENCH_SOCKETS', 5000),
  clusters: env('BENCH_CLUSTERS', 500),
  conversationsPerCluster: 2,
  clientProcesses: env('BENCH_CLIENT_PROCESSES', 4),
  connectConcurrency: env('BENCH_CONNECT_CONCURRENCY', 25),
  connectTimeoutMs: 60_000,
  idleSeconds: env('BENCH_IDLE_SECONDS', 5),
  writer: {
    ratePerSecond: env('BENCH_RATE', 1000),
    rowsPerTransaction: env('BENCH_ROWS_PER_TRANSACTION', 10),
    connections: env('BENCH_WRITER_CONNECTIONS', 4),
    warmupMs: env('BENCH_WARMUP_SECONDS', 5) * 1000,
    measureMs: env('BENCH_SECONDS', 20) * 1000,
  },
};

/** The schema of the three plugins, applied by the CLI as a deployment would, before any server starts. */
async function migrate(databaseUrl: string): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(root, 'app/cli.ts'), 'migrate'], {
    env: {
      ...process.env,
      APP_ENV: 'production',
      API_AUTH_MODE: 'disabled',
      AUTH_MODE: 'local',
      AUTH_SECRET: 'x',
      DATABASE_URL: databaseUrl,
      GATEWAY_PLUGINS: 'auth,messaging,realtime',
      LOG_LEVEL: 'warn',
    },
  });
}

async function seed(databaseUrl: string): Promise<Routing> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return await seedRouting(db, {
      clusters: settings.clusters,
      agentsPerCluster: settings.sockets / settings.clusters,
      conversationsPerCluster: settings.conversationsPerCluster,
    });
  } finally {
    await db.end();
  }
}

function scenarioSettings(name: string): ScenarioSettings {
  return name === 'bare'
    ? { ...settings, kind: 'bare', replicas: 1 }
    : { ...settings, kind: 'gateway', replicas: Number(name) };
}

function meetsTarget(scenario: ScenarioReport): boolean {
  return (
    scenario.writer.keptUp &&
    scenario.sockets.connected === scenario.sockets.planned &&
    scenario.latency.p95Ms <= TARGET.p95Ms &&
    scenario.delivery.lost <= TARGET.lost
  );
}

/**
 * A gateway scenario's latency over the bare socket.io server's, per percentile (bench/README.md, "Targets");
 * none when either writer fell behind (the machine, not the servers, set those latencies).
 */
function ratios(scenario: ScenarioReport, bare: ScenarioReport | undefined) {
  if (!bare || scenario.kind === 'bare' || !bare.writer.keptUp || !scenario.writer.keptUp) return null;
  const ratio = (gateway: number, baseline: number) => Math.round((gateway / baseline) * 100) / 100;
  return {
    median: ratio(scenario.latency.medianMs, bare.latency.medianMs),
    p95: ratio(scenario.latency.p95Ms, bare.latency.p95Ms),
    p99: ratio(scenario.latency.p99Ms, bare.latency.p99Ms),
  };
}

/** One latency row of the summary: a label, the percentiles, then the scenario's other columns. */
function latencyRow(label: string, p: Percentiles, rest: ReadonlyArray<string | number> = []) {
  return [label, p.medianMs, p.p95Ms, p.p99Ms, p.maxMs, ...rest];
}

/** The human summary: each scenario's latencies with its floors, then each server, then CPU. */
function summary(scenarios: readonly ScenarioReport[]): string {
  const bare = scenarios.find((scenario) => scenario.kind === 'bare');
  const latency = table(
    [
      'latency, ms',
      'median',
      'p95',
      'p99',
      'max',
      'sockets',
      'msg/s',
      'deliv/s',
      'lost',
      'dup',
      'p95/bare',
      'target',
    ],
    scenarios.flatMap((s) => [
      latencyRow(`${s.name}: COMMIT→client`, s.latency, [
        s.sockets.connected,
        s.writer.messagesPerSecond,
        s.deliveriesPerSecond,
        s.delivery.lost,
        s.delivery.duplicates,
        ratios(s, bare)?.p95 ?? '',
        s.writer.keptUp ? (s.kind === 'bare' ? '' : meetsTarget(s) ? 'met' : 'NOT met') : 'writer behind',
      ]),
      latencyRow('  trigger→client', s.latencyFromTrigger),
      latencyRow('  COMMIT→NOTIFY, bare LISTEN', s.commitToNotify),
      latencyRow('  trigger→NOTIFY, bare LISTEN', s.triggerToNotify),
    ]),
  );
  const servers = table(
    [
      'server',
      'sockets',
      'RSS before MB',
      'RSS idle MB',
      'KB/socket',
      'RSS end MB',
      'peak MB',
      'CPU % idle',
      'CPU % load',
      'loop p99 ms',
      'emit p95 ≤ ms',
    ],
    scenarios.flatMap((s) =>
      s.servers.map((server) => [
        server.name,
        server.sockets,
        server.beforeSockets.rssMb,
        server.idle.rssMb,
        server.kbPerSocket,
        server.endOfLoad.rssMb,
        server.endOfLoad.peakMb,
        server.idle.cpuPercent,
        server.cpuPercent,
        server.eventLoopDelayMs?.p99 ?? '',
        server.commitToEmitAtMostMs?.p95 ?? '',
      ]),
    ),
  );
  const cpu = scenarios.map(
    (s) =>
      `${s.name}, CPU seconds over the measured ${s.writer.measuredSeconds} s: ` +
      Object.entries(s.cpuSecondsByProcess)
        .sort((a, b) => b[1] - a[1])
        .map(([name, seconds]) => `${name} ${seconds}`)
        .join(', ') +
      `; this run ${s.runCpuPercent}% of the machine, the machine busy ${s.machineCpuPercent}%`,
  );
  const statements = scenarios.flatMap((s) =>
    s.statements
      ? [
          `${s.name}, PostgreSQL's costliest statements over the measured window:`,
          table(
            ['calls', 'total ms', 'mean ms', 'statement'],
            s.statements.map((row) => [row.calls, row.totalMs, row.meanMs, row.query]),
          ),
        ]
      : [],
  );
  const bySecond = scenarios.map(
    (s) => `${s.name}, COMMIT→client p95 by second: ${s.p95BySecondMs.join(' ')}`,
  );
  return [latency, servers, cpu.join('\n'), bySecond.join('\n'), ...statements].join('\n\n') + '\n';
}

async function main(): Promise<void> {
  const teardown = new Teardown();
  try {
    const postgres = await startBenchPostgres();
    teardown.add('postgres', () => postgres.stop());
    await migrate(postgres.url);
    const routing = await seed(postgres.url);
    const scenarios: ScenarioReport[] = [];
    for (const name of settings.scenarios) {
      scenarios.push(await runScenario(scenarioSettings(name), postgres.url, routing, teardown));
      process.stderr.write(`scenario ${scenarios.at(-1)?.name} done\n`);
    }
    const bare = scenarios.find((scenario) => scenario.kind === 'bare');
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings,
          target: 'p95 <= 50 ms, no message lost, every socket connected (gateway scenarios)',
          scenarios: scenarios.map((scenario) => ({
            ...scenario,
            latencyOverBare: ratios(scenario, bare),
            targetMet: scenario.kind === 'bare' ? null : meetsTarget(scenario),
          })),
        },
        null,
        2,
      ) + '\n',
    );
    process.stderr.write(summary(scenarios));
    if (!scenarios.every((scenario) => scenario.kind === 'bare' || meetsTarget(scenario)))
      process.exitCode = 1;
  } catch (err) {
    if (teardown.interrupted) await teardown.interrupted;
    throw err;
  } finally {
    await teardown.unwind(0);
  }
}

await main();
