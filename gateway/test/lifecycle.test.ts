/**
 * Process lifecycle through real processes: replicas booting together against one database (ADR 0002), the
 * embedded database surviving restarts (docs/configuration.md, "The embedded PostgreSQL"), and SIGTERM
 * draining an in-flight request (`SHUTDOWN_TIMEOUT_MS`).
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { platform } from 'node:os';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parentDeathPrefix } from '../src/db/postmaster.ts';
import { createTestDatabase } from '../../test/support/database.ts';
import {
  expectAllStopped,
  isolation,
  killLeftovers,
  npmStartSuite,
  postmasterPid,
  removeDataDir,
  type Isolation,
} from '../../test/support/npm-start.ts';
import {
  endsWithTest,
  FIXTURE_CLI,
  freePort,
  processEnv,
  spawnGateway,
  spawnNpm,
  type GatewayProcess,
} from '../../test/support/process.ts';

const LISTENING = /"msg":"gateway listening"/;

/**
 * Every test here spawns processes (npm, gateways, PostgreSQL, initdb) and waits for them to boot and
 * stop: generous, so that a loaded machine does not fail them.
 */
const PROCESS_TEST_TIMEOUT_MS = 150_000;

function urlFrom(child: GatewayProcess): string {
  const match = /"url":"(http:\/\/[^"]+)"/.exec(child.stdout());
  if (!match?.[1]) throw new Error(`no url in output:\n${child.stdout()}`);
  return match[1];
}

async function stop(child: GatewayProcess): Promise<number | null> {
  child.child.kill('SIGTERM');
  return child.exited;
}

/**
 * After a test with its own DATA_DIR: stops an embedded PostgreSQL left running and removes the directory.
 * Registered before the gateway is spawned, so it runs once the gateway has been ended.
 */
async function cleanUp(where: Isolation): Promise<void> {
  await killLeftovers(undefined, where);
  await removeDataDir(where);
}

describe('replicas', () => {
  it(
    'two processes booting at once against one empty database both come up, with one set of migrations',
    async () => {
      const empty = await createTestDatabase({ empty: true });
      const env = processEnv({ DATABASE_URL: empty.url });
      const replicas = [
        endsWithTest(spawnGateway({ args: ['serve'], env })),
        endsWithTest(spawnGateway({ args: ['serve'], env })),
      ];
      try {
        await Promise.all(replicas.map((child) => child.waitForOutput(LISTENING)));
        for (const child of replicas) {
          expect((await fetch(`${urlFrom(child)}/health`)).status).toBe(200);
        }
        const { rows } = await empty.pool.query<{ scope: string; name: string; copies: number }>(
          'SELECT scope, name, count(*)::int AS copies FROM gatehouse_migrations GROUP BY scope, name',
        );
        expect(rows.length).toBeGreaterThanOrEqual(1);
        for (const row of rows) expect(row.copies).toBe(1);
        // Exactly one of the two applied the migrations; the other found them applied.
        const applied = replicas.map(
          (child) => (child.stdout().match(/"msg":"migration applied"/g) ?? []).length,
        );
        expect(applied.sort()).toEqual([0, rows.length]);
        const { rows: tables } = await empty.pool.query("SELECT to_regclass('audit_log') AS audit");
        expect(tables[0]).toEqual({ audit: 'audit_log' });
      } finally {
        await Promise.all(replicas.map(stop));
        await empty.drop();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('embedded PostgreSQL (DATABASE_URL unset)', () => {
  it(
    'starts with the gateway, keeps its data under DATA_DIR across restarts, and stops with it',
    async () => {
      // Not mkdtemp: the unprivileged postgres user must be able to enter the folder when tests run as root.
      const dataDir = path.join(tmpdir(), `gatehouse-embedded-${process.pid}-${Date.now()}`);
      await mkdir(dataDir, { recursive: true, mode: 0o755 });
      const pgPort = await freePort();
      onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
      const env = processEnv({ DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort) });
      const first = endsWithTest(spawnGateway({ args: ['serve'], env }));
      await first.waitForOutput(LISTENING);
      expect((await fetch(`${urlFrom(first)}/health`)).status).toBe(200);
      const { password } = JSON.parse(await readFile(path.join(dataDir, 'embedded-pg.json'), 'utf8')) as {
        password: string;
      };
      const connectionString = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/gatehouse`;
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query("INSERT INTO audit_log (kind, payload) VALUES ('test.persisted', '{\"n\": 1}')");
      await client.end();
      expect(await stop(first)).toBe(0);

      // Stopped with the gateway: nothing answers on its port any more.
      await expect(new pg.Client({ connectionString }).connect()).rejects.toThrow();

      const second = endsWithTest(spawnGateway({ args: ['serve'], env }));
      await second.waitForOutput(LISTENING);
      expect(second.stdout()).not.toContain('initialising embedded PostgreSQL');
      const again = new pg.Client({ connectionString });
      await again.connect();
      const { rows } = await again.query("SELECT payload FROM audit_log WHERE kind = 'test.persisted'");
      await again.end();
      expect(rows).toEqual([{ payload: { n: 1 } }]);
      expect(await stop(second)).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('npm start (the README command)', () => {
  const suite = npmStartSuite('npm-start');

  it(
    'boots with development settings and the embedded database, API gate disabled',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      expect((await fetch(`${started.url}/health`)).status).toBe(200);
      expect(started.npm.stdout()).toContain('"apiAuthMode":"disabled"');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  // What a process manager (systemd, supervisord, pm2, a CI runner) sends to the process it started.
  it(
    'SIGTERM to the npm process stops the gateway and its embedded PostgreSQL',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      process.kill(started.npm.child.pid as number, 'SIGTERM');
      await expectAllStopped(started, suite.where);
      expect(started.npm.stdout()).toContain('"reason":"received SIGTERM"');
      expect(started.npm.stdout()).toContain('"msg":"shutdown complete"');
      expect(await started.npm.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'Ctrl-C (SIGINT to the foreground process group, which npm forwards again): one clean shutdown',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      process.kill(-(started.npm.child.pid as number), 'SIGINT');
      await expectAllStopped(started, suite.where);
      const code = await started.npm.exited;
      const seen = `npm exited with ${code}; stderr:\n${started.npm.stderr()}`;
      expect(started.npm.stdout(), seen).toContain('"msg":"shutdown complete"');
      // npm exits with its child's code: the SIGINT it forwarded was not taken for a second, impatient one.
      expect(code, seen).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'npm killed with SIGKILL: the gateway notices it was left without a parent and stops, with its PostgreSQL',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      process.kill(started.npm.child.pid as number, 'SIGKILL');
      await expectAllStopped(started, suite.where);
      expect(started.npm.stdout()).toMatch(/"reason":"parent process \d+ exited/);
      expect(started.npm.stdout()).toContain('"msg":"shutdown complete"');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'the gateway killed with SIGKILL: its embedded PostgreSQL stops too (Linux, setpriv)',
    async (context) => {
      if (platform() !== 'linux') return context.skip('the parent-death signal is Linux only');
      if ((await parentDeathPrefix()).length === 0) {
        const message = 'setpriv (Debian package util-linux) is not installed';
        if (process.env.CI) throw new Error(message);
        return context.skip(message);
      }
      const started = await suite.start({ HOST: '127.0.0.1' });
      process.kill(started.gatewayPid, 'SIGKILL');
      await expectAllStopped(started, suite.where);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('npm run migrate (bare checkout)', () => {
  it(
    'applies the migrations to the embedded database with development settings',
    async () => {
      const dataDir = path.join(tmpdir(), `gatehouse-npm-migrate-${process.pid}-${Date.now()}`);
      await mkdir(dataDir, { recursive: true, mode: 0o755 });
      // Registered first, so it runs after the process below is ended (vitest runs these hooks in reverse order).
      onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
      const pgPort = await freePort();
      const migrate = endsWithTest(
        spawnNpm({
          args: ['run', 'migrate', '--silent'],
          env: { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: 'warn' },
        }),
      );
      const code = await migrate.exited;
      if (code !== 0) {
        throw new Error(`npm run migrate exited with ${code}\n${migrate.stdout()}\n${migrate.stderr()}`);
      }
      expect(migrate.stdout()).toMatch(/^[1-9]\d* migration\(s\) applied/m);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe('graceful shutdown', () => {
  it(
    'SIGTERM during an in-flight request: the request completes, new connections are refused, exit 0',
    async () => {
      const db = await createTestDatabase();
      onTestFinished(() => db.drop());
      const child = endsWithTest(
        spawnGateway({
          entry: FIXTURE_CLI,
          args: ['serve'],
          env: processEnv({ DATABASE_URL: db.url, GATEWAY_PLUGINS: 'fixture' }),
        }),
      );
      await child.waitForOutput(LISTENING);
      const url = urlFrom(child);
      const inFlight = fetch(`${url}/fixture/slow`);
      await child.waitForOutput(/fixture: slow request started/);

      child.child.kill('SIGTERM');
      await child.waitForOutput(/shutting down: draining in-flight requests/);
      await expect(fetch(`${url}/health`)).rejects.toThrow();

      child.child.stdin.write('release\n');
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ finished: true });
      expect(await child.exited).toBe(0);
      expect(child.stdout()).toContain('"msg":"shutdown complete"');
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'Ctrl-C (SIGINT to the whole process group) with the embedded database: an in-flight request still reaches it',
    async () => {
      const where = await isolation('ctrl-c');
      onTestFinished(() => cleanUp(where));
      const child = endsWithTest(
        spawnGateway({
          entry: FIXTURE_CLI,
          args: ['serve'],
          env: { ...where.env, HOST: '127.0.0.1', APP_ENV: 'development', GATEWAY_PLUGINS: 'fixture' },
          detached: true,
        }),
      );
      await child.waitForOutput(LISTENING);
      const inFlight = fetch(`${urlFrom(child)}/fixture/slow`);
      await child.waitForOutput(/fixture: slow request started/);
      // What the terminal does on Ctrl-C: every process of the foreground group gets SIGINT.
      process.kill(-(child.child.pid as number), 'SIGINT');
      await child.waitForOutput(/shutting down: draining in-flight requests/);
      child.child.stdin.write('release\n');
      const res = await inFlight;
      expect(await res.json()).toEqual({ finished: true });
      expect(res.status).toBe(200);
      expect(await child.exited).toBe(0);
      expect(postmasterPid(where.dataDir)).toBeUndefined();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  // `docker stop` during a slow first boot (initdb, migrations): node is PID 1 there, and a signal that
  // has no handler yet is dropped for PID 1, so the handler must exist before the boot starts.
  it(
    'SIGTERM while booting: the boot completes, then the gateway stops cleanly with exit 0',
    async () => {
      const where = await isolation('boot-sigterm');
      onTestFinished(() => cleanUp(where));
      const child = endsWithTest(spawnGateway({ args: ['serve'], env: { ...processEnv(), ...where.env } }));
      await child.waitForOutput(/initialising embedded PostgreSQL/);
      child.child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
      expect(child.stdout()).toContain('"reason":"received SIGTERM"');
      expect(postmasterPid(where.dataDir)).toBeUndefined();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    'an idle gateway exits 0 on SIGINT too',
    async () => {
      const db = await createTestDatabase();
      onTestFinished(() => db.drop());
      const child = endsWithTest(
        spawnGateway({ args: ['serve'], env: processEnv({ DATABASE_URL: db.url }) }),
      );
      await child.waitForOutput(LISTENING);
      child.child.kill('SIGINT');
      expect(await child.exited).toBe(0);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
