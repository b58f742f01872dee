/**
 * `npm run bench`: the real gateway against baselines measured in the same run (brief, "Performance").
 *
 * Every target runs as its own process on loopback; the load generator (wrk when present, else autocannon)
 * runs in another. Rounds are interleaved (gateway, Express, node:http, gateway, ...) so a noisy moment on
 * the machine hits all targets alike; the median round is reported. Output: JSON on stdout.
 *
 * Options (env): BENCH_SECONDS (per round, default 8), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32).
 */
import { mkdir, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../package.json' with { type: 'json' };
import { hasWrk, load, type LoadResult, type LoadSpec } from './lib/load.ts';
import { freePort, startProcess, type Target } from './lib/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'bench', 'out');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Scenario {
  name: string;
  target: 'gateway' | 'express' | 'node';
  spec: Omit<LoadSpec, 'url' | 'seconds' | 'connections'> & { path: string };
}

const PLUGINS = ['auth', 'kyc', 'messaging', 'realtime'];
// The baselines answer the same JSON document the gateway's landing route serves.
const LANDING = JSON.stringify({ name: packageJson.name, version: packageJson.version, plugins: PLUGINS });

const scenarios: Scenario[] = [
  { name: 'gateway GET / (core pipeline)', target: 'gateway', spec: { path: '/' } },
  { name: 'bare express res.json', target: 'express', spec: { path: '/' } },
  { name: 'bare node:http', target: 'node', spec: { path: '/' } },
];

async function main(): Promise<void> {
  await mkdir(outDir, { recursive: true });
  // Not mkdtemp: its 0700 folder is closed to the unprivileged user the embedded Postgres runs as.
  const dataDir = path.join(tmpdir(), `gatehouse-bench-${process.pid}`);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const useWrk = await hasWrk();
  const targets = new Map<Scenario['target'], Target>();
  try {
    targets.set(
      'gateway',
      await startProcess({
        name: 'gateway',
        args: [path.join(root, 'gateway/src/cli.ts'), 'serve'],
        env: {
          APP_ENV: 'production',
          API_AUTH_MODE: 'disabled',
          GATEWAY_PLUGINS: PLUGINS.join(','),
          DATA_DIR: dataDir,
          EMBEDDED_PG_PORT: String(await freePort()),
          METRICS_PORT: String(await freePort()),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          ...(process.env.BENCH_DATABASE_URL ? { DATABASE_URL: process.env.BENCH_DATABASE_URL } : {}),
        },
        logFile: path.join(outDir, 'gateway.log'),
        port: await freePort(),
        readyPath: '/health',
      }),
    );
    targets.set(
      'express',
      await startProcess({
        name: 'express',
        args: [path.join(root, 'bench/targets/bare-express.ts')],
        env: { BENCH_BODY: LANDING },
        logFile: path.join(outDir, 'express.log'),
        port: await freePort(),
        readyPath: '/',
      }),
    );
    targets.set(
      'node',
      await startProcess({
        name: 'node',
        args: [path.join(root, 'bench/targets/bare-node.ts')],
        env: { BENCH_BODY: LANDING },
        logFile: path.join(outDir, 'node.log'),
        port: await freePort(),
        readyPath: '/',
      }),
    );

    // Warm-up: JIT and connection pools, not measured.
    for (const scenario of scenarios) await measure(scenario, targets, Math.min(3, seconds), useWrk);

    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) {
        const result = await measure(scenario, targets, seconds, useWrk);
        results.set(scenario.name, [...(results.get(scenario.name) ?? []), result]);
      }
    }

    const summary = Object.fromEntries(
      scenarios.map((scenario) => [scenario.name, median(results.get(scenario.name) ?? [])]),
    );
    const rps = (name: string) => summary[name]?.requestsPerSecond ?? Number.NaN;
    const ratio = (a: string, b: string) => Math.round((rps(a) / rps(b)) * 1000) / 1000;
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: { seconds, rounds, connections, tool: useWrk ? 'wrk' : 'autocannon' },
          results: summary,
          ratios: {
            'gateway GET / vs bare express': ratio('gateway GET / (core pipeline)', 'bare express res.json'),
            'gateway GET / vs bare node:http': ratio('gateway GET / (core pipeline)', 'bare node:http'),
            'bare express vs bare node:http': ratio('bare express res.json', 'bare node:http'),
          },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    for (const target of targets.values()) await target.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function measure(
  scenario: Scenario,
  targets: Map<Scenario['target'], Target>,
  duration: number,
  useWrk: boolean,
): Promise<LoadResult> {
  const target = targets.get(scenario.target);
  if (!target) throw new Error(`no target ${scenario.target}`);
  const { path: urlPath, ...rest } = scenario.spec;
  return load({ ...rest, url: target.url + urlPath, seconds: duration, connections }, useWrk);
}

function median(results: LoadResult[]): LoadResult | undefined {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)];
}

await main();
