/**
 * `npm run bench:login` (targets: bench/README.md, "Targets"): password logins under a flood of 50
 * concurrent clients against the real gateway, with:
 *  - login throughput and p99;
 *  - the gateway's peak RSS during the flood (VmHWM; must stay under 512 MB);
 *  - a gated API route's p99 during the flood against its p99 at rest (must be at most 2×);
 *  - a control: the gated route's p99 while another process computes argon2id hashes back to back at the
 *    lowest CPU priority, with no logins (what hashing alone costs the probe on this machine).
 * Output: JSON on stdout. Options (env): BENCH_SECONDS (default 10).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from '@auth/core/jwt';
import argon2 from 'argon2';
import pg from 'pg';
import { SIGNATURE_HEADER, signatureHeader } from '../gateway/src/gate/hmac.ts';
import { hasWrk, load, type LoadResult } from './lib/load.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { freePort, startProcess } from './lib/processes.ts';
import { SESSION_HEADER } from '../gateway/src/gate/gate.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdef';
const AUTH_SECRET = 'bench-auth-secret-0123456789abcdef';
const GATED = '/api/v1/gate/identity';
const PASSWORD = 'bench violet umbrella 42';
const PROBE_RATE = 200;

async function main(): Promise<void> {
  const postgres = await startBenchPostgres();
  const port = await freePort();
  const gateway = await startProcess({
    name: 'gateway',
    args: [path.join(root, 'app/cli.ts'), 'serve'],
    env: {
      APP_ENV: 'production',
      API_AUTH_MODE: 'enforce',
      AUTH_MODE: 'local',
      INTERNAL_API_SECRET: INTERNAL_SECRET,
      AUTH_SECRET,
      GATEWAY_PLUGINS: 'auth',
      DATABASE_URL: postgres.url,
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      LOG_LEVEL: 'info',
      // The flood logs in correctly; the brute-force limits are not what is measured here. Attempts count
      // while in flight (plugins/auth/README.md, "Brute-force limits"), so 50 parallel sign-ins of one account
      // need more than the default allowance of 5.
      LOGIN_FREE_FAILURES_PER_IP: '100000',
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '1000',
    },
    logFile: path.join(root, 'bench/out/gateway-login.log'),
    port,
    readyPath: '/health',
  });
  try {
    const db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
    const hash = await argon2.hash(PASSWORD, {
      type: argon2.argon2id,
      memoryCost: 19456,
      timeCost: 2,
      parallelism: 1,
    });
    const { rows } = await db.query<{ id: string }>(
      "INSERT INTO auth_users (email, password_hash) VALUES ('bench@example.com', $1) RETURNING id",
      [hash],
    );
    await db.end();
    const token = await encode({
      token: { sub: rows[0]?.id, email: 'bench@example.com', roles: [] },
      secret: AUTH_SECRET,
      salt: 'authjs.session-token',
      maxAge: 3600,
    });
    const useWrk = await hasWrk();
    // The gated route is probed at a fixed, moderate rate (autocannon's overallRate), at rest and during
    // the flood: its latency is compared, not its saturation throughput.
    const gated = () =>
      load(
        {
          url: gateway.url + GATED,
          seconds,
          connections: 4,
          rate: PROBE_RATE,
          headers: {
            [SIGNATURE_HEADER]: signatureHeader(INTERNAL_SECRET, Math.floor(Date.now() / 1000), {
              method: 'GET',
              url: GATED,
              body: undefined,
            }),
            [SESSION_HEADER]: token,
          },
        },
        false,
      );
    const pid = await gatewayPid(port);
    await gated(); // warm-up
    const atRest = await gated();
    const [logins, duringFlood] = await Promise.all([
      load(
        {
          url: `${gateway.url}/auth/login`,
          seconds,
          connections: 50,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
        },
        useWrk,
      ),
      gated(),
    ]);
    const peakRssMb = pid ? await peakRss(pid) : Number.NaN;
    // Control: the same probe while another process, at the lowest CPU priority the machine offers,
    // computes argon2id hashes back to back and the gateway does nothing else. It shows what hashing at
    // this rate costs the probe on this machine whatever the gateway does.
    const hashing = hashLoopElsewhere();
    const duringHashingElsewhere = await gated();
    hashing.kill('SIGKILL');
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      settings: {
        seconds,
        loginConnections: 50,
        loginTool: useWrk ? 'wrk' : 'autocannon',
        gatedProbe: `autocannon, ${PROBE_RATE} req/s, 4 connections`,
      },
      login: summary(logins),
      gatedAtRest: summary(atRest),
      gatedDuringFlood: summary(duringFlood),
      gatedWhileAnotherProcessHashes: { ...summary(duringHashingElsewhere), hashProcess: hashing.priority },
      peakRssMb,
      checks: {
        'peak RSS < 512 MB': peakRssMb < 512,
        'gated p99 during flood <= 2x at rest': duringFlood.p99Ms <= 2 * atRest.p99Ms,
        'gated p99 ratio': Math.round((duringFlood.p99Ms / atRest.p99Ms) * 100) / 100,
        'control: gated p99 ratio while another process hashes':
          Math.round((duringHashingElsewhere.p99Ms / atRest.p99Ms) * 100) / 100,
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await gateway.stop();
    await postgres.stop();
  }
}

function summary(result: LoadResult) {
  return {
    requestsPerSecond: result.requestsPerSecond,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    non2xx: result.non2xx,
  };
}

/** The gateway's pid, found by its listening port (the bench started it, but through a wrapper). */
async function gatewayPid(port: number): Promise<number | null> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) =>
    execFile('sh', ['-c', `pgrep -f 'app/cli.ts serve' | head -20`], (_err, stdout) => {
      const pids = stdout.split('\n').filter(Boolean).map(Number);
      void Promise.all(
        pids.map(async (pid) =>
          (await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '')).includes(`PORT=${port}\0`)
            ? pid
            : null,
        ),
      ).then((found) => resolve(found.find((pid) => pid !== null) ?? null));
    }),
  );
}

/** bench/lib/argon2-loop.ts in its own process: SCHED_IDLE through chrt where it exists, else nice 19. */
function hashLoopElsewhere(): { priority: string; kill(signal: NodeJS.Signals): void } {
  const script = path.join(root, 'bench/lib/argon2-loop.ts');
  const idle = spawnSync('chrt', ['--version']).status === 0;
  const child = idle
    ? spawn('chrt', ['--idle', '0', process.execPath, script], { stdio: 'ignore' })
    : spawn('nice', ['-n', '19', process.execPath, script], { stdio: 'ignore' });
  return { priority: idle ? 'SCHED_IDLE' : 'nice 19', kill: (signal) => child.kill(signal) };
}

/** Peak resident set size (VmHWM) of a process, in MB. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

await main();
