/**
 * CLI commands beside a running gateway with the embedded PostgreSQL (no DATABASE_URL): they use the
 * server already running on DATA_DIR, start one only when none runs, and never stop one they did not
 * start. Everything through real processes: `npm start`, `npm run gatehouse -- ...`, `npm run migrate`.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { npmStartSuite, postmasterPid, type Isolation } from '../../test/support/npm-start.ts';
import { endsWithTest, isRunning, spawnNpm } from '../../test/support/process.ts';

const TIMEOUT_MS = 150_000;

async function npmRun(where: Isolation, args: string[], stdin = '') {
  const child = endsWithTest(
    spawnNpm({ args: ['run', '--silent', ...args], env: { ...where.env, LOG_LEVEL: 'warn' } }),
  );
  child.child.stdin.end(stdin);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('CLI commands and the embedded PostgreSQL', () => {
  const suite = npmStartSuite('cli-beside');

  it(
    'admin create and migrate run beside `npm start` on its server, which keeps running',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      const created = await npmRun(
        suite.where,
        ['gatehouse', '--', 'admin', 'create', '--email', 'admin@example.com'],
        'correct horse battery staple 42\n',
      );
      expect(created.stderr).toBe('');
      expect(created).toMatchObject({ code: 0 });
      expect(created.stdout).toMatch(/^created administrator admin@example.com/m);

      const migrated = await npmRun(suite.where, ['migrate']);
      expect(migrated).toMatchObject({ code: 0 });
      expect(migrated.stdout).toMatch(/^0 migration\(s\) applied/m);

      // The commands left the gateway's server alone: same process, still serving the gateway.
      expect(postmasterPid(suite.where.dataDir)).toBe(started.postgresPid);
      expect(isRunning(started.postgresPid)).toBe(true);
      expect((await fetch(`${started.url}/api/v1/health/full`)).status).toBe(200);
    },
    TIMEOUT_MS,
  );

  it(
    'a second gateway on the same DATA_DIR refuses to boot, naming the server already running',
    async () => {
      const started = await suite.start({ HOST: '127.0.0.1' });
      const second = await npmRun(suite.where, ['start'], '');
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`is already running (pid ${started.postgresPid}`);
      expect(isRunning(started.postgresPid)).toBe(true);
    },
    TIMEOUT_MS,
  );

  it(
    'without a gateway, a command starts its own server (over a stale postmaster.pid) and stops it',
    async () => {
      // A lock file left by a server that is gone (a crash, a reboot): its pid names no process.
      const stale = path.join(suite.where.dataDir, 'pg', 'postmaster.pid');
      await writeFile(
        stale,
        `999999999\n${path.join(suite.where.dataDir, 'pg')}\n0\n${suite.where.env.EMBEDDED_PG_PORT}\n\n127.0.0.1\n0 0\nready\n`,
      );
      const migrated = await npmRun(suite.where, ['migrate']);
      expect(migrated).toMatchObject({ code: 0 });
      expect(postmasterPid(suite.where.dataDir)).toBeUndefined();
    },
    TIMEOUT_MS,
  );
});
