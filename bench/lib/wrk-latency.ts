import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A closed-loop window of one request repeated by `connections` clients, as wrk measured it. */
export interface WrkLatency {
  requests: number;
  requestsPerSecond: number;
  /** Answers other than 2xx/3xx. */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  socketErrors: number;
  p50Ms: number;
  p90Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

// wrk's `done` hook sees every latency it recorded: the percentiles its --latency table lacks (p95).
const REPORT = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"durationUs":%d,"non2xx":%d,"socketErrors":%d,"p50":%d,"p90":%d,"p95":%d,"p99":%d,"max":%d,"mean":%.1f}\\n',
    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(95), latency:percentile(99),
    latency.max, latency.mean))
end
`;

const ms = (us: number) => Math.round(us / 100) / 10;

/**
 * `connections` clients each sending the same GET as soon as their previous answer came (wrk, one thread:
 * a C load generator leaves the two cores to the gateway and PostgreSQL), for `seconds`.
 */
export async function wrkLatency(options: {
  url: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}): Promise<WrkLatency> {
  const script = `/tmp/gatehouse-bench-wrk-${process.pid}.lua`;
  await writeFile(script, REPORT);
  const args = [
    '-t',
    '1',
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--timeout',
    '10s',
  ];
  for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}: ${value}`);
  const { stdout } = await run('wrk', [...args, '-s', script, options.url], { maxBuffer: 1 << 20 });
  const line = /WRK_JSON (\{.*\})/.exec(stdout)?.[1];
  if (!line) throw new Error(`wrk printed no report:\n${stdout}`);
  const raw = JSON.parse(line) as Record<string, number>;
  const value = (key: string) => raw[key] ?? Number.NaN;
  return {
    requests: value('requests'),
    requestsPerSecond: Math.round(value('requests') / (value('durationUs') / 1e6)),
    non2xx: value('non2xx'),
    socketErrors: value('socketErrors'),
    p50Ms: ms(value('p50')),
    p90Ms: ms(value('p90')),
    p95Ms: ms(value('p95')),
    p99Ms: ms(value('p99')),
    maxMs: ms(value('max')),
    meanMs: ms(value('mean')),
  };
}
