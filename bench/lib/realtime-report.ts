import { percentile } from '../../test/support/health-probe.ts';
import { roundToTenth } from './latency.ts';
import type { SocketReceipts } from './realtime-bench-wire.ts';
import type { WriterResult } from './realtime-writer.ts';

/** Latency percentiles as Supabase publishes Realtime's: median, p95, p99 (nearest rank), plus the ends. */
export interface Percentiles {
  n: number;
  minMs: number;
  medianMs: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

export function percentiles(samples: Float64Array | readonly number[]): Percentiles {
  const values = Array.from(samples);
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    n: values.length,
    minMs: roundToTenth(percentile(values, 0)),
    medianMs: roundToTenth(percentile(values, 50)),
    p95Ms: roundToTenth(percentile(values, 95)),
    p99Ms: roundToTenth(percentile(values, 99)),
    maxMs: roundToTenth(percentile(values, 100)),
    meanMs: roundToTenth(sum / (values.length || 1)),
  };
}

export interface Deliveries {
  /** COMMIT-returned → received, ms, one per first delivery of a measured message to a socket. */
  latencies: Float64Array;
  /** The same deliveries from the event's `createdAt` (its trigger ran, just before COMMIT) → received. */
  fromTrigger: Float64Array;
  /** Each latency's second of the measured window (by its COMMIT): whether latency holds or builds up. */
  second: Int32Array;
  /** Deliveries owed: each message to every connected socket of its cluster (warm-up included). */
  expected: number;
  /** First deliveries of owed messages. */
  received: number;
  lost: number;
  /** Second and later deliveries of the same message to the same socket. */
  duplicates: number;
  /** Messages received by a socket not in their cluster's room (must be 0: entitlements). */
  foreign: number;
  /** Latencies below zero: the event overtook the writer's view of its own COMMIT (see bench/realtime.ts). */
  negative: number;
  disconnects: number;
  resyncs: number;
}

/**
 * Matches what the sockets received against what the writer committed. `clusterOfSocket[i]` is socket i's
 * cluster; only the sockets in `receipts` (those that connected) are owed anything.
 */
export function countDeliveries(
  writer: WriterResult,
  receipts: readonly SocketReceipts[],
  clusterOfSocket: (index: number) => number,
): Deliveries {
  const perCluster = new Map<number, number>();
  for (const cluster of writer.clusterOf) perCluster.set(cluster, (perCluster.get(cluster) ?? 0) + 1);
  const latencies: number[] = [];
  const fromTrigger: number[] = [];
  const second: number[] = [];
  const origin = writer.commitAt[writer.measuredFrom] ?? 0;
  const totals = {
    expected: 0,
    received: 0,
    duplicates: 0,
    foreign: 0,
    negative: 0,
    disconnects: 0,
    resyncs: 0,
  };
  for (const socket of receipts) {
    const cluster = clusterOfSocket(socket.index);
    const seen = new Set<number>();
    totals.expected += perCluster.get(cluster) ?? 0;
    totals.disconnects += socket.disconnects;
    totals.resyncs += socket.resyncs;
    socket.seqs.forEach((seq, i) => {
      if (seq >= writer.events || writer.clusterOf[seq] !== cluster) return void totals.foreign++;
      if (seen.has(seq)) return void totals.duplicates++;
      seen.add(seq);
      if (seq < writer.measuredFrom) return;
      const latency = (socket.at[i] as number) - (writer.commitAt[seq] as number);
      if (latency < 0) totals.negative++;
      latencies.push(latency);
      fromTrigger.push((socket.at[i] as number) - (socket.createdAt[i] as number));
      second.push(Math.floor(((writer.commitAt[seq] as number) - origin) / 1000));
    });
    totals.received += seen.size;
  }
  return {
    ...totals,
    latencies: Float64Array.from(latencies),
    fromTrigger: Float64Array.from(fromTrigger),
    second: Int32Array.from(second),
    lost: totals.expected - totals.received,
  };
}

/** The p95 of the latencies of each second of the measured window, in order. */
export function p95BySecond(latencies: Float64Array, second: Int32Array): number[] {
  const bySecond: number[][] = [];
  latencies.forEach((latency, i) => (bySecond[Math.max(0, second[i] ?? 0)] ??= []).push(latency));
  return Array.from(bySecond, (values) => (values ? percentiles(values).p95Ms : Number.NaN));
}

/** What the bare LISTEN client received: each NOTIFY's message, its receive time and its event's createdAt. */
export interface Notified {
  seqs: readonly number[];
  at: Float64Array;
  createdAt: Float64Array;
}

/**
 * COMMIT-returned → NOTIFY received by the bare LISTEN client, and createdAt → NOTIFY received, for the
 * measured messages it saw.
 */
export function notifyLatencies(
  writer: WriterResult,
  notified: Notified,
): { latencies: Float64Array; fromTrigger: Float64Array; missed: number } {
  const latencies: number[] = [];
  const fromTrigger: number[] = [];
  const seen = new Set<number>();
  notified.seqs.forEach((seq, i) => {
    if (seq < writer.measuredFrom || seq >= writer.events || seen.has(seq)) return;
    seen.add(seq);
    latencies.push((notified.at[i] as number) - (writer.commitAt[seq] as number));
    fromTrigger.push((notified.at[i] as number) - (notified.createdAt[i] as number));
  });
  return {
    latencies: Float64Array.from(latencies),
    fromTrigger: Float64Array.from(fromTrigger),
    missed: writer.events - writer.measuredFrom - seen.size,
  };
}

/** A fixed-width text table: a header row, then rows; numbers right-aligned. */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
): string {
  const cells = [header, ...rows].map((row) =>
    row.map((cell) => (typeof cell === 'number' ? cell.toLocaleString('en-US') : cell)),
  );
  const widths = header.map((_, column) => Math.max(...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: readonly string[], numeric: boolean[]) =>
    row
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ');
  const numeric = header.map((_, column) => rows.some((row) => typeof row[column] === 'number'));
  return [line(cells[0] as string[], numeric), ...cells.slice(1).map((row) => line(row, numeric))].join('\n');
}
