import { cpus } from 'node:os';
import type { StatementCost } from './pg-statements.ts';
import type { Memory } from './proc-stats.ts';
import { bucketQuantile, type Scrape } from './prometheus-text.ts';
import type { ConnectResult, SocketReceipts } from './realtime-bench-wire.ts';
import {
  countDeliveries,
  notifyLatencies,
  p95BySecond,
  percentiles,
  type Deliveries,
  type Notified,
  type Percentiles,
} from './realtime-report.ts';
import type { RealtimeServer, ServerKind } from './realtime-servers.ts';
import type { WriterResult } from './realtime-writer.ts';

/** The plugin's trigger→emit histogram (plugins/realtime/src/service/metrics.ts). */
const DELIVERY_HISTOGRAM = 'gatehouse_realtime_delivery_seconds';

/** What was read around the writer's load. */
export interface LoadReadings {
  writer: WriterResult;
  /** CPU seconds by process of this run over the measured window, and how busy the machine was. */
  cpu: { seconds: Record<string, number>; machineBusyPercent: number };
  /** Each server's memory once the last COMMIT returned. */
  endOfLoad: Memory[];
  /** Each server's metrics when the measured window opened and when it closed (empty for the bare one). */
  scrapes: { before: Scrape[]; after: Scrape[] };
  /** With BENCH_PGSS=1: the statements that took PostgreSQL the most time over the measured window. */
  statements: StatementCost[] | null;
}

export interface ServerReport {
  name: string;
  sockets: number;
  /** Started, before any socket connected. */
  beforeSockets: Memory;
  /** Idle with every socket connected: memory, and CPU in percent of one core. */
  idle: Memory & { cpuPercent: number };
  /** Resident memory each connected socket added, KB. */
  kbPerSocket: number;
  endOfLoad: Memory;
  cpuSeconds: number;
  /** Of one core, over the measured window. */
  cpuPercent: number;
  /** The event loop's delay over the measured window (prom-client's monitor); null for the bare server. */
  eventLoopDelayMs: { p99: number; max: number } | null;
  /** Trigger → emitted to the rooms, from the plugin's histogram: the bucket bound each quantile falls in. */
  commitToEmitAtMostMs: { median: number | null; p95: number | null; p99: number | null } | null;
}

export interface ScenarioReport {
  name: string;
  kind: ServerKind;
  replicas: number;
  sockets: { planned: number; connected: number; connectSeconds: number; failures: string[] };
  writer: {
    messages: number;
    measuredMessages: number;
    measuredSeconds: number;
    messagesPerSecond: number;
    /**
     * Whether the writer held its rate (within 3 %): when the machine is too busy for it, the load was not
     * what the scenario says and its latencies describe the machine, not the server.
     */
    keptUp: boolean;
    transactionStartLagMs: Percentiles;
  };
  /** COMMIT returned to the writer → `event` received by the socket, over every measured delivery. */
  latency: Percentiles;
  /**
   * The same deliveries from the event's `createdAt` (the trigger's clock_timestamp(), just before COMMIT):
   * independent of when the writer got to see its COMMIT return, which a busy machine delays.
   */
  latencyFromTrigger: Percentiles;
  /** COMMIT→client p95 of each second of the measured window: steady, spiking, or building up. */
  p95BySecondMs: number[];
  deliveriesPerSecond: number;
  delivery: Omit<Deliveries, 'latencies' | 'fromTrigger' | 'second'>;
  /** COMMIT returned → NOTIFY received by a bare `pg` LISTEN client, for the same messages. */
  commitToNotify: Percentiles & { missed: number };
  /** createdAt → NOTIFY received by the same client. */
  triggerToNotify: Percentiles;
  servers: ServerReport[];
  cpuSecondsByProcess: Record<string, number>;
  /** CPU used by this run's processes over the measured window, as a share of all cores. */
  runCpuPercent: number;
  /** The whole machine's busy share meanwhile: this run and anything else running on it. */
  machineCpuPercent: number;
  statements?: StatementCost[];
}

/** Turns one scenario's raw readings into its report. */
export function scenarioReport(input: {
  settings: { kind: ServerKind; replicas: number; sockets: number; ratePerSecond: number };
  servers: ReadonlyArray<
    RealtimeServer & { sockets: number; beforeSockets: Memory; idle: Memory & { cpuPercent: number } }
  >;
  clusterOfSocket: (index: number) => number;
  connected: ConnectResult;
  load: LoadReadings;
  receipts: SocketReceipts[];
  notified: Notified;
}): ScenarioReport {
  const { settings, load } = input;
  const { writer } = load;
  const { latencies, fromTrigger, second, ...delivery } = countDeliveries(
    writer,
    input.receipts,
    input.clusterOfSocket,
  );
  const notify = notifyLatencies(writer, input.notified);
  const cpu = load.cpu.seconds;
  const runCpu = Object.values(cpu).reduce((sum, seconds) => sum + seconds, 0);
  return {
    name: settings.kind === 'bare' ? 'bare socket.io' : `gateway × ${settings.replicas}`,
    kind: settings.kind,
    replicas: settings.replicas,
    sockets: {
      planned: settings.sockets,
      connected: input.connected.ready,
      connectSeconds: round(input.connected.seconds),
      failures: input.connected.failures,
    },
    writer: {
      messages: writer.events,
      measuredMessages: writer.events - writer.measuredFrom,
      measuredSeconds: round(writer.measuredSeconds),
      messagesPerSecond: Math.round((writer.events - writer.measuredFrom) / writer.measuredSeconds),
      keptUp:
        (writer.events - writer.measuredFrom) / writer.measuredSeconds >= 0.97 * input.settings.ratePerSecond,
      transactionStartLagMs: percentiles(writer.startLagMs),
    },
    latency: percentiles(latencies),
    latencyFromTrigger: percentiles(fromTrigger),
    p95BySecondMs: p95BySecond(latencies, second),
    deliveriesPerSecond: Math.round(latencies.length / writer.measuredSeconds),
    delivery,
    commitToNotify: { ...percentiles(notify.latencies), missed: notify.missed },
    triggerToNotify: percentiles(notify.fromTrigger),
    servers: input.servers.map((server, i) => ({
      name: server.name,
      sockets: server.sockets,
      beforeSockets: server.beforeSockets,
      idle: server.idle,
      kbPerSocket: Math.round(((server.idle.rssMb - server.beforeSockets.rssMb) * 1024) / server.sockets),
      endOfLoad: load.endOfLoad[i] ?? { rssMb: Number.NaN, peakMb: Number.NaN },
      cpuSeconds: cpu[server.name] ?? 0,
      cpuPercent: Math.round((100 * (cpu[server.name] ?? 0)) / writer.measuredSeconds),
      ...serverMetrics(server, load.scrapes.before[i], load.scrapes.after[i]),
    })),
    cpuSecondsByProcess: cpu,
    runCpuPercent: Math.round((100 * runCpu) / (writer.measuredSeconds * cpus().length)),
    machineCpuPercent: load.cpu.machineBusyPercent,
    ...(load.statements ? { statements: load.statements } : {}),
  };
}

function serverMetrics(
  server: RealtimeServer,
  before: Scrape | undefined,
  after: Scrape | undefined,
): Pick<ServerReport, 'eventLoopDelayMs' | 'commitToEmitAtMostMs'> {
  if (server.metricsUrl === null || !before || !after)
    return { eventLoopDelayMs: null, commitToEmitAtMostMs: null };
  const ms = (seconds: number | null | undefined) =>
    seconds === null || seconds === undefined ? Number.NaN : round(seconds * 1000);
  const quantile = (q: number) => {
    const seconds = bucketQuantile(before, after, DELIVERY_HISTOGRAM, q);
    return seconds === null ? null : ms(seconds);
  };
  return {
    eventLoopDelayMs: {
      p99: ms(after.get('nodejs_eventloop_lag_p99_seconds')),
      max: ms(after.get('nodejs_eventloop_lag_max_seconds')),
    },
    commitToEmitAtMostMs: { median: quantile(0.5), p95: quantile(0.95), p99: quantile(0.99) },
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
