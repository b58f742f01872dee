/**
 * `npm run bench:second-factor` (bench/README.md): what the second step of a password sign-in costs, with the
 * gateway as its own process on the bench PostgreSQL, in local mode:
 *  - the TOTP step (`POST /api/v1/auth/login/totp`: the pending row used up, the code checked, the replay guard's
 *    compare-and-set and the session insert in one transaction) and the recovery-code step, p50/p99 at 10
 *    concurrent sign-ins, each of a different account;
 *  - against `GET /health` at the same concurrency (the baseline of this run), and the password step itself (one
 *    argon2id verification) for scale.
 * The password steps that make the pending sign-ins run before each timed part. Output: JSON on stdout. Options
 * (env): BENCH_ACCOUNTS (default 300), BENCH_SECONDS (health window, default 10).
 */
import argon2 from 'argon2';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from 'otplib';
import pg from 'pg';
import { roundToTenth, summarise } from './lib/latency.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { freePort, startProcess } from './lib/processes.ts';
import { ARGON2_PARAMS } from '../plugins/auth/src/service/password-hasher.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONCURRENCY = 10;
const PASSWORD = 'bench password violet 42';

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(json)}`);
  return {
    json,
    cookie: /^authjs\.session-token=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '',
  };
}

/** Runs `work` once per item with `concurrency` in flight; the latency of each. */
async function timed<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>) {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        const t0 = performance.now();
        await work(item);
        samples.push(performance.now() - t0);
      }
    }),
  );
  return {
    ...summarise(samples),
    perSecond: roundToTenth(samples.length / ((performance.now() - started) / 1000)),
  };
}

async function main(): Promise<void> {
  const postgres = await startBenchPostgres();
  const port = await freePort();
  const appBase = `http://localhost:${port}`;
  const gateway = await startProcess({
    name: 'gateway',
    args: [path.join(root, 'app/cli.ts'), 'serve'],
    env: {
      APP_ENV: 'production',
      API_AUTH_MODE: 'enforce',
      AUTH_MODE: 'local',
      AUTH_SECRET: 'bench-auth-secret-0123456789abcdef',
      INTERNAL_API_SECRET: 'bench-internal-secret-0123456789abcdef',
      TOTP_ENCRYPTION_KEY: 'bench-totp-key-0123456789abcdef-0123456789',
      APP_BASE_URL: appBase,
      LOGIN_FREE_FAILURES_PER_IP: '100000',
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '1000',
      GATEWAY_PLUGINS: 'auth',
      DATABASE_URL: postgres.url,
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    },
    logFile: path.join(root, 'bench/out/gateway-second-factor.log'),
    port,
    readyPath: '/health',
  });
  const db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  try {
    const hash = await argon2.hash(PASSWORD, ARGON2_PARAMS);
    await db.query(
      `INSERT INTO auth_users (email, password_hash) SELECT 'user-' || i || '@example.com', $1 FROM generate_series(1, $2) AS i`,
      [hash, ACCOUNTS],
    );
    const emails = Array.from({ length: ACCOUNTS }, (_, i) => `user-${i + 1}@example.com`);
    const login = (email: string) => post(`${gateway.url}/auth/login`, { email, password: PASSWORD });
    const origin = { origin: appBase };

    // Each account enrolls (not timed): a session, a secret, the first code, the recovery codes.
    const enrolled = new Map<string, { secret: string; recoveryCodes: string[] }>();
    const enrollment = await timed(emails, CONCURRENCY, async (email) => {
      const { cookie } = await login(email);
      const headers = { ...origin, cookie: `authjs.session-token=${cookie}` };
      const { json } = await post(`${gateway.url}/api/v1/auth/totp/enroll`, {}, headers);
      const secret = json.secret as string;
      const code = await generate({ secret });
      const confirmed = await post(`${gateway.url}/api/v1/auth/totp/confirm`, { code }, headers);
      enrolled.set(email, { secret, recoveryCodes: confirmed.json.recoveryCodes as string[] });
    });

    const pendingTokens = async () => {
      const tokens = new Map<string, string>();
      const passwordStep = await timed(emails, CONCURRENCY, async (email) => {
        tokens.set(email, (await login(email)).json.pendingToken as string);
      });
      return { tokens, passwordStep };
    };
    // The next step's code: within the ±1 step window, and newer than the enrollment's, whenever it runs.
    const first = await pendingTokens();
    const totp = await timed(emails, CONCURRENCY, async (email) => {
      const { secret } = enrolled.get(email) as { secret: string };
      const code = await generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });
      await post(`${gateway.url}/api/v1/auth/login/totp`, { pendingToken: first.tokens.get(email), code });
    });
    const second = await pendingTokens();
    const recovery = await timed(emails, CONCURRENCY, async (email) => {
      const { recoveryCodes } = enrolled.get(email) as { recoveryCodes: string[] };
      await post(`${gateway.url}/api/v1/auth/login/recovery-code`, {
        pendingToken: second.tokens.get(email),
        code: recoveryCodes[0],
      });
    });
    const healthSamples: number[] = [];
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          const t0 = performance.now();
          await (await fetch(`${gateway.url}/health`)).arrayBuffer();
          healthSamples.push(performance.now() - t0);
        }
      }),
    );
    const health = { ...summarise(healthSamples), perSecond: roundToTenth(healthSamples.length / SECONDS) };
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: { accounts: ACCOUNTS, concurrency: CONCURRENCY, seconds: SECONDS },
          enrollment,
          passwordStep: first.passwordStep,
          totpStep: { ...totp, p99RatioToHealth: roundToTenth(totp.p99Ms / health.p99Ms) },
          recoveryCodeStep: { ...recovery, p99RatioToHealth: roundToTenth(recovery.p99Ms / health.p99Ms) },
          health,
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    await db.end();
    await gateway.stop();
    await postgres.stop();
  }
}

await main();
