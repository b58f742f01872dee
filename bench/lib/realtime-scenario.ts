import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { forkChild, type BenchChild } from './child-rpc.ts';
import {
  cpuBetween,
  cpuSecondsOf,
  memoryOf,
  postmasterOn,
  readCpu,
  withChildren,
  type Memory,
  type ProcessGroups,
} from './proc-stats.ts';
import { costliestStatements, resetStatements } from './pg-statements.ts';
import { scrape, type Scrape } from './prometheus-text.ts';
import {
  seqOf,
  type ConnectRequest,
  type ConnectResult,
  type SocketPlan,
  type SocketReceipts,
} from './realtime-bench-wire.ts';
import { BENCH_AUTH_SECRET, BENCH_SESSION_COOKIE } from './realtime-gateway.ts';
import type { Notified } from './realtime-report.ts';
import { scenarioReport, type LoadReadings, type ScenarioReport } from './realtime-scenario-report.ts';
import { startServers, type RealtimeServer, type ServerKind } from './realtime-servers.ts';
import { writeMessages, type Routing, type WriterPlan } from './realtime-writer.ts';
import type { Teardown } from './teardown.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT_SCRIPT = fileURLToPath(new URL('./realtime-client-process.ts', import.meta.url));
const NOTIFY_SCRIPT = fileURLToPath(new URL('./realtime-notify-process.ts', import.meta.url));
/** After the last COMMIT, deliveries still arriving are waited for until none came for this long. */
const DRAIN_QUIET_MS = 3_000;

export interface ScenarioSettings {
  kind: ServerKind;
  replicas: number;
  sockets: number;
  clientProcesses: number;
  connectConcurrency: number;
  connectTimeoutMs: number;
  /** Idle time with every socket connected before the first reading of memory. */
  idleSeconds: number;
  writer: Omit<WriterPlan, 'runTag' | 'onMeasureStart'>;
}

/**
 * One scenario: `replicas` servers of `kind` on the database, the sockets split evenly over them and opened
 * by `clientProcesses` client processes, a bare LISTEN client beside them; then the writer's load, then the
 * readings. Everything started here is stopped before it returns.
 */
export async function runScenario(
  settings: ScenarioSettings,
  databaseUrl: string,
  routing: Routing,
  teardown: Teardown,
): Promise<ScenarioReport> {
  const mark = teardown.mark();
  try {
    const servers = await startServers(settings.kind, settings.replicas, databaseUrl, teardown);
    const clients = forkChildren(settings.clientProcesses, 'realtime-client', CLIENT_SCRIPT, teardown);
    const [listener] = forkChildren(1, 'realtime-notify', NOTIFY_SCRIPT, teardown) as [BenchChild];
    const plans = planSockets(settings, routing, servers);
    const beforeSockets = servers.map((server) => memoryOf(server.pid));
    const connected = await connectAll(clients, plans, settings);
    const idle = await idleReadings(servers, settings.idleSeconds);
    await listener.request('listen', { url: databaseUrl });
    const firstEventId = await newestEventId(databaseUrl);
    const load = await underLoad(settings, databaseUrl, routing, servers, [...clients, listener]);
    await drain(clients, connected.ready * (load.writer.events / routing.clusterIds.length));
    const receipts = await Promise.all(clients.map((client) => client.request<SocketReceipts[]>('report')));
    return scenarioReport({
      settings: { ...settings, ratePerSecond: settings.writer.ratePerSecond },
      servers: servers.map((server, i) => ({
        ...server,
        sockets: plans.flat().filter((plan) => plan.url === server.url).length,
        beforeSockets: beforeSockets[i] ?? { rssMb: Number.NaN, peakMb: Number.NaN },
        idle: idle[i] ?? { rssMb: Number.NaN, peakMb: Number.NaN, cpuPercent: Number.NaN },
      })),
      clusterOfSocket: (index) => clusterOfSocket(index, settings.sockets / routing.clusterIds.length),
      connected,
      load,
      receipts: receipts.flat(),
      notified: await notifiedSeqs(databaseUrl, firstEventId, listener),
    });
  } finally {
    await teardown.unwind(mark);
  }
}

/** Each server idle with its sockets connected: memory at the end, CPU over `seconds` (the recheck sweeps). */
async function idleReadings(
  servers: readonly RealtimeServer[],
  seconds: number,
): Promise<Array<Memory & { cpuPercent: number }>> {
  const before = servers.map((server) => cpuSecondsOf(server.pid));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return servers.map((server, i) => ({
    ...memoryOf(server.pid),
    cpuPercent: Math.round((100 * (cpuSecondsOf(server.pid) - (before[i] ?? 0))) / seconds),
  }));
}

function forkChildren(count: number, name: string, script: string, teardown: Teardown): BenchChild[] {
  return Array.from({ length: count }, (_, i) => {
    const childName = count === 1 ? name : `${name}-${i + 1}`;
    const child = forkChild({
      name: childName,
      script,
      logFile: path.join(root, `bench/out/${childName}.log`),
    });
    teardown.add(childName, () => child.stop());
    return child;
  });
}

/** Socket `index`'s cluster, numbered as Routing.clusterIds (and the writer's clusterOf) number them. */
function clusterOfSocket(index: number, perCluster: number): number {
  return Math.floor(index / perCluster);
}

/**
 * Socket i is agent i % agentsPerCluster of cluster ⌊i / agentsPerCluster⌋, on server i % replicas, opened
 * by client process i % clientProcesses: each cluster's agents are spread over every replica, so every
 * message is delivered by every replica.
 */
function planSockets(
  settings: ScenarioSettings,
  routing: Routing,
  servers: readonly RealtimeServer[],
): SocketPlan[][] {
  const perCluster = settings.sockets / routing.clusterIds.length;
  const plans: SocketPlan[][] = Array.from({ length: settings.clientProcesses }, () => []);
  for (let index = 0; index < settings.sockets; index++) {
    const cluster = clusterOfSocket(index, perCluster);
    plans[index % settings.clientProcesses]?.push({
      index,
      clusterId: routing.clusterIds[cluster] as string,
      sub: routing.agents[cluster]?.[index % perCluster] as string,
      url: (servers[index % servers.length] as RealtimeServer).url,
    });
  }
  return plans;
}

async function connectAll(
  clients: readonly BenchChild[],
  plans: readonly SocketPlan[][],
  settings: ScenarioSettings,
): Promise<ConnectResult> {
  const results = await Promise.all(
    clients.map((client, i) =>
      client.request<ConnectResult>('connect', {
        sockets: plans[i] ?? [],
        secret: BENCH_AUTH_SECRET,
        cookieName: BENCH_SESSION_COOKIE,
        concurrency: settings.connectConcurrency,
        timeoutMs: settings.connectTimeoutMs,
      } satisfies ConnectRequest),
    ),
  );
  return {
    ready: results.reduce((sum, result) => sum + result.ready, 0),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
    failures: results.flatMap((result) => result.failures).slice(0, 5),
    seconds: Math.max(...results.map((result) => result.seconds)),
  };
}

/**
 * The writer's load. When the measured window opens, CPU counters are read and each gateway's metrics
 * scraped (which also restarts prom-client's event-loop delay monitor); when the last COMMIT has returned,
 * both again, with each server's memory.
 */
async function underLoad(
  settings: ScenarioSettings,
  databaseUrl: string,
  routing: Routing,
  servers: readonly RealtimeServer[],
  children: ReadonlyArray<{ name: string; pid: number }>,
): Promise<LoadReadings> {
  const scrapeAll = () =>
    Promise.all(
      servers.map((server) =>
        server.metricsUrl ? scrape(server.metricsUrl) : Promise.resolve(new Map<string, number>()),
      ),
    );
  let groups: ProcessGroups = {};
  let cpuBefore = readCpu(groups);
  let before: Promise<Scrape[]> = Promise.resolve([]);
  let reset: Promise<void> = Promise.resolve();
  const writer = await writeMessages(databaseUrl, routing, {
    ...settings.writer,
    runTag: `${settings.kind}${settings.replicas}-${Date.now()}`,
    onMeasureStart() {
      groups = processGroups(databaseUrl, [...servers, ...children]);
      cpuBefore = readCpu(groups);
      before = scrapeAll();
      if (process.env.BENCH_PGSS) reset = resetStatements(databaseUrl);
    },
  });
  const cpu = cpuBetween(groups, cpuBefore, readCpu(groups));
  const endOfLoad = servers.map((server) => memoryOf(server.pid));
  const after = await scrapeAll();
  await reset;
  const statements = process.env.BENCH_PGSS ? await costliestStatements(databaseUrl, 12) : null;
  return { writer, cpu, endOfLoad, scrapes: { before: await before, after }, statements };
}

/** This run's processes by role, with the bench's PostgreSQL (its postmaster and every backend) as one. */
function processGroups(
  databaseUrl: string,
  processes: ReadonlyArray<{ name: string; pid: number }>,
): ProcessGroups {
  const postmaster = postmasterOn(Number(new URL(databaseUrl).port));
  return {
    ...Object.fromEntries(processes.map((child) => [child.name, [child.pid]])),
    'bench (writer)': [process.pid],
    ...(postmaster === null ? {} : { postgres: withChildren(postmaster) }),
  };
}

/** Waits until the clients have received `expected` events in all, or none arrived for a while. */
async function drain(clients: readonly BenchChild[], expected: number): Promise<void> {
  let last = -1;
  let quietSince = performance.now();
  for (;;) {
    const counts = await Promise.all(clients.map((client) => client.request<number>('progress')));
    const received = counts.reduce((sum, count) => sum + count, 0);
    if (received >= expected) return;
    if (received !== last) {
      last = received;
      quietSince = performance.now();
    } else if (performance.now() - quietSince > DRAIN_QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function newestEventId(databaseUrl: string): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string | null }>('SELECT max(id) AS id FROM realtime_events');
    return Number(rows[0]?.id ?? 0);
  } finally {
    await db.end();
  }
}

/** The bare listener's notifications as the writer's sequence numbers (a NOTIFY carries the event id only). */
async function notifiedSeqs(databaseUrl: string, afterId: number, listener: BenchChild): Promise<Notified> {
  const { ids, at } = await listener.request<{ ids: Float64Array; at: Float64Array }>('report');
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: string; text: string | null; created: number }>(
      `SELECT id, payload ->> 'text' AS text, extract(epoch FROM created_at)::float8 * 1000 AS created
         FROM realtime_events WHERE id > $1 AND type = 'message.created'`,
      [afterId],
    );
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return {
      seqs: Array.from(ids, (id) => seqOf(byId.get(id)?.text) ?? -1),
      at,
      createdAt: Float64Array.from(ids, (id) => byId.get(id)?.created ?? Number.NaN),
    };
  } finally {
    await db.end();
  }
}
