/**
 * `npm run bench`: the real gateway against baselines measured in the same run (targets: bench/README.md,
 * "Targets").
 *
 * Every server runs as its own process on loopback; the load generator (wrk when present, else autocannon)
 * runs in another. Rounds are interleaved (gateway, Express, node:http, gateway, ...) so a noisy moment on
 * the machine hits all servers alike; the median round is reported. Output: JSON on stdout.
 *
 * Baselines: bare Express `res.json`, the same fed the gated scenario's headers, bare Express doing only the
 * gate's per-request crypto (the floor for the gated route, bench/baselines/express-gate-crypto.ts), and bare
 * node:http (the ceiling).
 *
 * Options (env): BENCH_SECONDS (per round, default 8), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32).
 */
import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import packageJson from '../package.json' with { type: 'json' };
import { encode } from '@auth/core/jwt';
import { SIGNATURE_HEADER, signatureHeader } from '../gateway/src/gate/hmac.ts';
import { hasWrk, load, medianRound, type LoadResult, type LoadSpec } from './lib/load.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { freePort, startProcess, type BenchProcess } from './lib/processes.ts';
import { SESSION_HEADER } from '../gateway/src/gate/gate.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'bench', 'out');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);

type ServerName = 'gateway' | 'gateway-enforce' | 'gateway-warn' | 'express' | 'express-gate-crypto' | 'node';

interface Scenario {
  name: string;
  server: ServerName;
  /** Headers are made per round: HMAC signatures carry a timestamp valid for ±300 s. */
  spec: () => Promise<Omit<LoadSpec, 'url' | 'seconds' | 'connections'> & { path: string }>;
}

const PLUGINS = ['auth', 'kyc', 'messaging', 'realtime'];
// The baselines answer the same JSON document the gateway's landing route serves.
const LANDING = JSON.stringify({ name: packageJson.name, version: packageJson.version, plugins: PLUGINS });

const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdef';
const AUTH_SECRET = 'bench-auth-secret-0123456789abcdef';
const GATED = '/api/v1/gate/identity';

/** A dashboard's request: signed now (valid ±300 s, so made per round), with an Auth.js session. */
async function gatedRequest() {
  return {
    path: GATED,
    headers: {
      [SIGNATURE_HEADER]: signatureHeader(INTERNAL_SECRET, Math.floor(Date.now() / 1000), {
        method: 'GET',
        url: GATED,
        body: undefined,
      }),
      // A dashboard's own token (no `sid`): the auth plugin's session resolver passes its claims as they are.
      [SESSION_HEADER]: await encode({
        token: { sub: 'bench-user', email: 'bench@example.com', roles: ['agent'] },
        secret: AUTH_SECRET,
        salt: 'authjs.session-token',
        maxAge: 3600,
      }),
    },
  };
}

const scenarios: Scenario[] = [
  { name: 'gateway GET / (core pipeline)', server: 'gateway', spec: () => Promise.resolve({ path: '/' }) },
  { name: 'gateway enforce, gated route, both layers valid', server: 'gateway-enforce', spec: gatedRequest },
  {
    name: 'gateway warn, every request failing both layers (audited)',
    server: 'gateway-warn',
    spec: () => Promise.resolve({ path: GATED }),
  },
  { name: 'bare express res.json', server: 'express', spec: () => Promise.resolve({ path: '/' }) },
  {
    // The same request bytes the gated scenario sends (Express ignores the headers, but parses them).
    name: 'bare express res.json, same request headers as the gated scenario',
    server: 'express',
    spec: async () => ({ ...(await gatedRequest()), path: '/' }),
  },
  {
    // The floor: Express doing only the gate's per-request crypto on the gated scenario's request.
    name: 'bare express + the gate crypto only (HMAC-SHA256, token SHA-256)',
    server: 'express-gate-crypto',
    spec: gatedRequest,
  },
  { name: 'bare node:http', server: 'node', spec: () => Promise.resolve({ path: '/' }) },
];

async function main(): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const useWrk = await hasWrk();
  const servers = new Map<ServerName, BenchProcess>();
  let postgres: { url: string; stop(): Promise<void> } | undefined;
  try {
    postgres = await startBenchPostgres();
    const gatewayEnv = (mode: string): Record<string, string> => ({
      APP_ENV: 'production',
      API_AUTH_MODE: mode,
      AUTH_MODE: 'local',
      INTERNAL_API_SECRET: INTERNAL_SECRET,
      AUTH_SECRET,
      GATEWAY_PLUGINS: PLUGINS.join(','),
      DATABASE_URL: (postgres as { url: string }).url,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    for (const [name, mode] of [
      ['gateway', 'disabled'],
      ['gateway-enforce', 'enforce'],
      ['gateway-warn', 'warn'],
    ] as const) {
      servers.set(
        name,
        await startProcess({
          name,
          args: [path.join(root, 'app/cli.ts'), 'serve'],
          env: { ...gatewayEnv(mode), METRICS_PORT: String(await freePort()) },
          logFile: path.join(outDir, `${name}.log`),
          port: await freePort(),
          readyPath: '/health',
        }),
      );
    }
    for (const [name, file, readyPath] of [
      ['express', 'bare-express.ts', '/'],
      ['express-gate-crypto', 'express-gate-crypto.ts', '/ready'],
      ['node', 'bare-node.ts', '/'],
    ] as const) {
      servers.set(
        name,
        await startProcess({
          name,
          args: [path.join(root, 'bench/baselines', file)],
          env: { BENCH_BODY: LANDING, INTERNAL_API_SECRET: INTERNAL_SECRET },
          logFile: path.join(outDir, `${name}.log`),
          port: await freePort(),
          readyPath,
        }),
      );
    }

    // Warm-up: JIT and connection pools, not measured.
    for (const scenario of scenarios) await measure(scenario, servers, Math.min(3, seconds), useWrk);

    const results = new Map<string, LoadResult[]>();
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) {
        const result = await measure(scenario, servers, seconds, useWrk);
        results.set(scenario.name, [...(results.get(scenario.name) ?? []), result]);
      }
    }

    const summary = Object.fromEntries(
      scenarios.map((scenario) => [scenario.name, medianRound(results.get(scenario.name) ?? [])]),
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
            'gated, both layers valid (enforce) vs bare express': ratio(
              'gateway enforce, gated route, both layers valid',
              'bare express res.json',
            ),
            'gated, both layers valid (enforce) vs bare express with the same request headers': ratio(
              'gateway enforce, gated route, both layers valid',
              'bare express res.json, same request headers as the gated scenario',
            ),
            'floor: bare express + the gate crypto only vs bare express': ratio(
              'bare express + the gate crypto only (HMAC-SHA256, token SHA-256)',
              'bare express res.json',
            ),
            'gated, both layers valid (enforce) vs the floor': ratio(
              'gateway enforce, gated route, both layers valid',
              'bare express + the gate crypto only (HMAC-SHA256, token SHA-256)',
            ),
            'warn-mode failure path vs bare express': ratio(
              'gateway warn, every request failing both layers (audited)',
              'bare express res.json',
            ),
          },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    for (const server of servers.values()) await server.stop();
    await postgres?.stop();
  }
}

async function measure(
  scenario: Scenario,
  servers: Map<ServerName, BenchProcess>,
  duration: number,
  useWrk: boolean,
): Promise<LoadResult> {
  const server = servers.get(scenario.server);
  if (!server) throw new Error(`no server ${scenario.server}`);
  const { path: urlPath, ...rest } = await scenario.spec();
  return load({ ...rest, url: server.url + urlPath, seconds: duration, connections }, useWrk);
}

await main();
