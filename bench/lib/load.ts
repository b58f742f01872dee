import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

const run = promisify(execFile);

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  tool: 'wrk' | 'autocannon';
}

export interface LoadSpec {
  url: string;
  seconds: number;
  connections: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Status codes that count as expected (e.g. 401 when measuring a failure path). */
  expectStatus?: number;
  /** A fixed request rate (autocannon only): a latency probe, not a throughput test. */
  rate?: number;
}

export async function hasWrk(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (err) {
    // wrk --version exits 1 but prints its version
    return (err as { stdout?: string }).stdout?.includes('wrk') ?? false;
  }
}

/** wrk when present (a C load generator steals less CPU from the server on a 2-core machine), else autocannon. */
export async function load(spec: LoadSpec, useWrk: boolean): Promise<LoadResult> {
  return useWrk ? loadWithWrk(spec) : loadWithAutocannon(spec);
}

async function loadWithWrk(spec: LoadSpec): Promise<LoadResult> {
  const args = ['-t', '1', '-c', String(spec.connections), '-d', `${spec.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(spec.headers ?? {})) args.push('-H', `${name}: ${value}`);
  if (spec.method || spec.body) {
    const lua = `wrk.method = ${JSON.stringify(spec.method ?? 'GET')}\nwrk.body = ${JSON.stringify(spec.body ?? '')}\n`;
    const { writeFile } = await import('node:fs/promises');
    const file = `/tmp/gatehouse-bench-${process.pid}.lua`;
    await writeFile(file, lua);
    args.push('-s', file);
  }
  args.push(spec.url);
  const { stdout } = await run('wrk', args, { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return {
    requestsPerSecond: rps,
    p50Ms: toMs(/\s50%\s+([\d.]+\w+)/.exec(stdout)?.[1]),
    p99Ms: toMs(/\s99%\s+([\d.]+\w+)/.exec(stdout)?.[1]),
    non2xx,
    tool: 'wrk',
  };
}

function toMs(value: string | undefined): number {
  if (!value) return Number.NaN;
  const match = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!match) return Number.NaN;
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 's' ? n * 1000 : n;
}

async function loadWithAutocannon(spec: LoadSpec): Promise<LoadResult> {
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    duration: spec.seconds,
    method: (spec.method ?? 'GET') as 'GET',
    headers: spec.headers,
    body: spec.body,
    ...(spec.rate ? { overallRate: spec.rate } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    tool: 'autocannon',
  };
}

/** The median round by throughput (rounds are interleaved, so a noisy moment hits every server alike). */
export function medianRound(results: readonly LoadResult[]): LoadResult | undefined {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)];
}
