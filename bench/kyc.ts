/**
 * `npm run bench:kyc` (targets: bench/README.md, "Targets"): the KYC API against the real gateway (production
 * settings, the kyc plugin, the bench's embedded PostgreSQL, logs to a file), with bare Express `res.json`
 * measured in the same run, interleaved rounds, median round reported:
 *  - `GET /api/v1/kyc/{id}` with a valid key (target ≥ 0.5× bare Express);
 *  - `POST /api/v1/kyc/initiate` on a sandbox tenant (each request a new verification).
 * The tenant and key are made with the real CLI. Output: JSON on stdout.
 * Options (env): BENCH_SECONDS (default 8), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 32).
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { hasWrk, load, medianRound, type LoadResult, type LoadSpec } from './lib/load.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { freePort, startProcess, type BenchProcess } from './lib/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = path.join(root, 'bench', 'out');
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const run = promisify(execFile);

async function cli(databaseUrl: string, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [path.join(root, 'app/cli.ts'), 'kyc', ...args], {
    env: {
      ...process.env,
      APP_ENV: 'production',
      API_AUTH_MODE: 'disabled',
      DATABASE_URL: databaseUrl,
      GATEWAY_PLUGINS: 'kyc',
      LOG_LEVEL: 'warn',
    },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function main(): Promise<void> {
  await mkdir(outDir, { recursive: true });
  const useWrk = await hasWrk();
  const postgres = await startBenchPostgres();
  const servers: BenchProcess[] = [];
  try {
    const gateway = await startProcess({
      name: 'gateway-kyc',
      args: [path.join(root, 'app/cli.ts'), 'serve'],
      env: {
        APP_ENV: 'production',
        API_AUTH_MODE: 'enforce',
        INTERNAL_API_SECRET: 'bench-internal-secret-0123456789abcdef',
        AUTH_SECRET: 'bench-auth-secret-0123456789abcdef',
        GATEWAY_PLUGINS: 'kyc',
        DATABASE_URL: postgres.url,
        HOST: '127.0.0.1',
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'info',
        // The limits are not what is measured: one key sends every request.
        KYC_RATE_LIMIT: '10000000',
        KYC_RATE_LIMIT_WINDOW_SECONDS: '60',
      },
      logFile: path.join(outDir, 'gateway-kyc.log'),
      port: await freePort(),
      readyPath: '/health',
    });
    servers.push(gateway);
    const LANDING = JSON.stringify({ name: 'gatehouse', version: '0.1.0', plugins: ['kyc'] });
    const express = await startProcess({
      name: 'express',
      args: [path.join(root, 'bench/baselines/bare-express.ts')],
      env: { BENCH_BODY: LANDING },
      logFile: path.join(outDir, 'express-kyc.log'),
      port: await freePort(),
      readyPath: '/',
    });
    servers.push(express);

    const tenant = await cli(postgres.url, ['tenant', 'create', '--name', 'Bench sandbox', '--sandbox']);
    const { key } = (await cli(postgres.url, ['key', 'create', '--tenant', String(tenant.id)])) as {
      key: string;
    };
    const created = await fetch(`${gateway.url}/api/v1/kyc/initiate`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'INDIVIDUAL_KTP', subjectExternalRef: 'bench-subject-approve' }),
    });
    if (created.status !== 201)
      throw new Error(`initiate answered ${created.status}: ${await created.text()}`);
    const { id } = (await created.json()) as { id: string };

    const scenarios: Array<{ name: string; spec: Omit<LoadSpec, 'seconds' | 'connections'> }> = [
      {
        name: 'kyc GET /api/v1/kyc/{id}',
        spec: { url: `${gateway.url}/api/v1/kyc/${id}`, headers: { 'x-api-key': key } },
      },
      {
        name: 'kyc POST /api/v1/kyc/initiate (sandbox)',
        spec: {
          url: `${gateway.url}/api/v1/kyc/initiate`,
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'INDIVIDUAL_KTP', subjectExternalRef: 'bench-load' }),
          expectStatus: 201,
        },
      },
      { name: 'bare express res.json', spec: { url: `${express.url}/` } },
    ];
    const measure = (spec: Omit<LoadSpec, 'seconds' | 'connections'>, duration: number) =>
      load({ ...spec, seconds: duration, connections }, useWrk);

    // Every sandbox initiation leaves work for the worker (provider steps). Each round starts once that
    // backlog has drained, so status reads measure reads, not the worker catching up.
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    const drained = async () => {
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM kyc_verifications
            WHERE next_check_at IS NOT NULL AND next_check_at <= now() + interval '5 seconds'`,
        );
        if (rows[0]?.n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const results = new Map<string, LoadResult[]>();
    try {
      // Round -1 warms up (JIT, pools) and is not reported.
      for (let round = -1; round < rounds; round++) {
        for (const s of scenarios) {
          await drained();
          const result = await measure(s.spec, round < 0 ? Math.min(3, seconds) : seconds);
          if (round >= 0) results.set(s.name, [...(results.get(s.name) ?? []), result]);
        }
      }
    } finally {
      await db.end();
    }
    const summary = Object.fromEntries(
      scenarios.map((s) => [s.name, medianRound(results.get(s.name) ?? [])]),
    );
    const rps = (name: string) => summary[name]?.requestsPerSecond ?? Number.NaN;
    const ratio = (a: string) => Math.round((rps(a) / rps('bare express res.json')) * 1000) / 1000;
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: { seconds, rounds, connections, tool: useWrk ? 'wrk' : 'autocannon' },
          results: summary,
          ratios: {
            'kyc status read vs bare express (target >= 0.5)': ratio('kyc GET /api/v1/kyc/{id}'),
            'kyc initiate (sandbox) vs bare express': ratio('kyc POST /api/v1/kyc/initiate (sandbox)'),
          },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    for (const server of servers) await server.stop();
    await postgres.stop();
  }
}

await main();
