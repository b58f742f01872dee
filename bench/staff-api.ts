/**
 * `npm run bench:staff-api` (target: bench/README.md, "Targets"): the messaging plugin's staff API on a
 * database the size of a busy admissions line, 20 dashboard clients at once.
 *
 * Database: the bench's embedded PostgreSQL (or BENCH_DATABASE_URL), migrated by `gatehouse migrate`
 * (plugins auth and messaging), seeded with COPY from a fixed seed (bench/lib/staff-api-seed.ts): 20
 * clusters with their agents, 200,000 conversations, 5,000,000 messages and 1,000,000 leads over two years,
 * then VACUUM ANALYZE. The seeded database is kept in bench/out/staff-api-pg and used again by the next run
 * when the seed settings and the migrations are the same (the seed is recorded in the database).
 *
 * Gateway: `node app/cli.ts serve` as its own process, production settings, API_AUTH_MODE=enforce, plugins
 * auth and messaging, the default pool (DATABASE_POOL_MAX 10), logs to bench/out/; the messaging worker
 * polls once a minute (every seeded message is processed: it has nothing to do).
 *
 * Each scenario is one request of the dashboard, signed as the dashboard signs it (both gate layers, an
 * Auth.js session token of an admin or of an agent of the biggest cluster), sent by BENCH_CONNECTIONS
 * clients in a closed loop (wrk, each client sends its next request when its answer came) for
 * BENCH_WARMUP_SECONDS unmeasured, then BENCH_SECONDS measured: latency p50/p95/p99, throughput, CPU of the
 * gateway and PostgreSQL per request, how busy the machine was, and pg_stat_statements' costliest statements
 * of the window. Before that, BENCH_ALONE_SECONDS of one client alone: the request's own latency, without
 * queueing behind 19 others. Then each scenario's request once more with auto_explain logging every statement's plan with
 * ANALYZE and BUFFERS: the SQL and parameters the gateway really sent.
 *
 * Output: JSON on stdout, a table on stderr, the plans in bench/out/staff-api-plans.txt; exit status 1 when
 * a scenario's p95 is over 50 ms or a request failed. Options (env): BENCH_SECONDS (10),
 * BENCH_WARMUP_SECONDS (3), BENCH_ALONE_SECONDS (3), BENCH_CONNECTIONS (20), BENCH_SCENARIOS (keys, comma-separated; default all;
 * `gate-identity` measures the gated identity route instead, a check of the harness), BENCH_PLANS (1; 0:
 * none), BENCH_RESEED=1 (seed again even when the kept database matches), BENCH_DATA_DIR
 * (bench/out/staff-api-pg), BENCH_LEADS, BENCH_CONVERSATIONS, BENCH_MESSAGES, BENCH_CLUSTERS, BENCH_SEED,
 * BENCH_DATABASE_URL (no plans then: the bench cannot read that server's log).
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { autoExplainOff, capturePlans, type LoggedPlan } from './lib/auto-explain.ts';
import { startMessagingProcess, startSendApi } from './lib/messaging-gateway.ts';
import { costliestStatements, resetStatements, type StatementCost } from './lib/pg-statements.ts';
import { cpuBetween, postmasterOn, readCpu, withChildren, type ProcessGroups } from './lib/proc-stats.ts';
import { table } from './lib/realtime-report.ts';
import { staffGet, staffHeaders } from './lib/staff-api-client.ts';
import { migrate, startStaffApiPostgres, type StaffApiPostgres } from './lib/staff-api-postgres.ts';
import { gateScenario, staffApiScenarios, type Scenario } from './lib/staff-api-scenarios.ts';
import { existingSeed, seedFingerprint, seedStaffApi, type SeedReport } from './lib/staff-api-seed.ts';
import type { SeedSettings } from './lib/staff-api-seed-plan.ts';
import { Teardown } from './lib/teardown.ts';
import { wrkLatency, type WrkLatency } from './lib/wrk-latency.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const TARGET_P95_MS = 50;

const settings = {
  seconds: env('BENCH_SECONDS', 10),
  warmupSeconds: env('BENCH_WARMUP_SECONDS', 3),
  aloneSeconds: env('BENCH_ALONE_SECONDS', 3),
  connections: env('BENCH_CONNECTIONS', 20),
  scenarios: process.env.BENCH_SCENARIOS?.split(',').filter(Boolean) ?? null,
  plans: process.env.BENCH_PLANS !== '0',
  reseed: process.env.BENCH_RESEED === '1',
  dataDir: process.env.BENCH_DATA_DIR ?? path.join(root, 'bench/out/staff-api-pg'),
};

const seedSettings: SeedSettings = {
  seed: env('BENCH_SEED', 17),
  clusters: env('BENCH_CLUSTERS', 20),
  agentsPerCluster: 8,
  conversations: env('BENCH_CONVERSATIONS', 200_000),
  messages: env('BENCH_MESSAGES', 5_000_000),
  leads: env('BENCH_LEADS', 1_000_000),
  endsAt: '2026-11-24T00:00:00.000Z',
  days: 730,
};

interface ScenarioResult {
  key: string;
  name: string;
  staff: string;
  path: string;
  latency: WrkLatency;
  /** The same request from one client at a time. */
  alone: WrkLatency;
  cpuSeconds: Record<string, number>;
  cpuMsPerRequest: Record<string, number>;
  machineBusyPercent: number;
  loadAverage: number;
  statements: Array<StatementCost & { callsPerRequest: number }>;
  plans: LoggedPlan[];
  targetMet: boolean;
}

/**
 * The seeded database: the kept one when it was seeded with these settings and migrations, else a new
 * one (on the bench's own server the database is created afresh, so the migrations apply from scratch).
 */
async function seeded(postgres: StaffApiPostgres): Promise<SeedReport> {
  const fingerprint = seedFingerprint(root, seedSettings);
  const db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
  const existing = await existingSeed(db, fingerprint).finally(() => db.end());
  if (existing && !settings.reseed) {
    process.stderr.write('seed: the kept database matches the seed settings and migrations; using it\n');
    await migrate(root, postgres.url);
    return existing;
  }
  if (postgres.ownServer) await postgres.recreateDatabase();
  await migrate(root, postgres.url);
  return seedStaffApi(postgres.url, seedSettings, fingerprint);
}

async function measure(
  scenario: Scenario,
  gatewayUrl: string,
  databaseUrl: string,
  groups: () => ProcessGroups,
): Promise<Omit<ScenarioResult, 'plans'>> {
  const requestPath = await scenario.path(gatewayUrl);
  const problem = scenario.check(await staffGet(gatewayUrl, scenario.staff, requestPath));
  if (problem) throw new Error(`${scenario.name}: ${problem} (GET ${requestPath})`);
  const load = { url: gatewayUrl + requestPath, headers: await staffHeaders(scenario.staff, requestPath) };
  // One client alone: the request's own time, before any queueing.
  const alone = await wrkLatency({ ...load, connections: 1, seconds: settings.aloneSeconds });
  await wrkLatency({ ...load, connections: settings.connections, seconds: settings.warmupSeconds });
  await resetStatements(databaseUrl);
  // Read after the warm-up: the gateway's pool has opened its connections (each a PostgreSQL backend).
  const processes = groups();
  const before = readCpu(processes);
  const latency = await wrkLatency({ ...load, connections: settings.connections, seconds: settings.seconds });
  const cpu = cpuBetween(processes, before, readCpu(processes));
  const statements = (await costliestStatements(databaseUrl, 6)).map((statement) => ({
    ...statement,
    callsPerRequest: Math.round((statement.calls / latency.requests) * 100) / 100,
  }));
  process.stderr.write(
    `${scenario.key}: p50 ${latency.p50Ms} p95 ${latency.p95Ms} p99 ${latency.p99Ms} ms (alone: p50 ${alone.p50Ms})\n`,
  );
  return {
    key: scenario.key,
    name: scenario.name,
    staff: scenario.staff.sub,
    path: requestPath,
    latency,
    alone,
    cpuSeconds: cpu.seconds,
    cpuMsPerRequest: Object.fromEntries(
      Object.entries(cpu.seconds).map(([name, seconds]) => [
        name,
        Math.round(((seconds * 1000) / latency.requests) * 100) / 100,
      ]),
    ),
    machineBusyPercent: cpu.machineBusyPercent,
    loadAverage: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    statements,
    targetMet: latency.p95Ms <= TARGET_P95_MS && latency.non2xx === 0 && latency.socketErrors === 0,
  };
}

function planReport(results: readonly ScenarioResult[]): string {
  return results
    .map((result) =>
      [
        `=== ${result.name}: GET ${result.path} as ${result.staff}`,
        ...result.plans.map((plan) =>
          [
            `--- ${plan.durationMs} ms (backend ${plan.pid})`,
            plan.query,
            ...(plan.parameters ? [`Parameters: ${plan.parameters}`] : []),
            plan.plan,
          ].join('\n'),
        ),
      ].join('\n\n'),
    )
    .join('\n\n');
}

function summary(results: readonly ScenarioResult[]): string {
  return table(
    [
      'scenario',
      'alone p50',
      'req/s',
      'p50',
      'p95',
      'p99',
      'max',
      'errors',
      'gateway CPU ms/req',
      'postgres CPU ms/req',
      'busy %',
      'p95 ≤ 50',
    ],
    results.map((r) => [
      r.key,
      r.alone.p50Ms,
      r.latency.requestsPerSecond,
      r.latency.p50Ms,
      r.latency.p95Ms,
      r.latency.p99Ms,
      r.latency.maxMs,
      r.latency.non2xx + r.latency.socketErrors,
      r.cpuMsPerRequest.gateway ?? '',
      r.cpuMsPerRequest.postgres ?? '',
      r.machineBusyPercent,
      r.targetMet ? 'met' : 'NOT met',
    ]),
  );
}

async function main(): Promise<void> {
  const teardown = new Teardown();
  try {
    const postgres = await startStaffApiPostgres({
      dataDir: settings.dataDir,
      logFile: path.join(root, 'bench/out/staff-api-postgres.log'),
    });
    teardown.add('postgres', () => postgres.stop());
    const seed = await seeded(postgres);
    if (postgres.ownServer) await autoExplainOff(postgres.url);
    const sendApi = await startSendApi();
    teardown.add('send api', () => sendApi.close());
    const gateway = await startMessagingProcess({
      name: 'gateway-staff-api',
      databaseUrl: postgres.url,
      sendApi,
      env: { MESSAGING_WORKER_INTERVAL_MS: '60000' },
    });
    teardown.add('gateway', () => gateway.stop());
    const postmaster = postmasterOn(Number(new URL(postgres.url).port));
    const groups = (): ProcessGroups => ({
      gateway: [gateway.pid],
      ...(postmaster ? { postgres: withChildren(postmaster) } : {}),
    });
    const all = [...staffApiScenarios(seed.facts), gateScenario()];
    const chosen = settings.scenarios
      ? all.filter((scenario) => settings.scenarios?.includes(scenario.key))
      : all.filter((scenario) => scenario.key !== 'gate-identity');
    const results: ScenarioResult[] = [];
    for (const scenario of chosen) {
      results.push({ ...(await measure(scenario, gateway.url, postgres.url, groups)), plans: [] });
    }
    if (settings.plans && postgres.ownServer) {
      for (const result of results) {
        const scenario = chosen.find((candidate) => candidate.key === result.key) as Scenario;
        result.plans = await capturePlans(
          postgres.url,
          () => postgres.tapLog(),
          async () => {
            await staffGet(gateway.url, scenario.staff, result.path);
          },
        );
      }
      await writeFile(path.join(root, 'bench/out/staff-api-plans.txt'), planReport(results) + '\n');
    }
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: { ...settings, seed: seedSettings },
          seed,
          target: `p95 <= ${TARGET_P95_MS} ms at ${settings.connections} concurrent clients, no failed request`,
          scenarios: results,
        },
        null,
        2,
      ) + '\n',
    );
    process.stderr.write(summary(results) + '\n');
    if (!results.every((result) => result.targetMet)) process.exitCode = 1;
  } catch (err) {
    if (teardown.interrupted) await teardown.interrupted;
    throw err;
  } finally {
    await teardown.unwind(0);
  }
}

await main();
