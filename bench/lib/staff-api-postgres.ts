import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startPostgresServer } from '../../test/support/postgres-server.ts';

/** The staff API benchmark's PostgreSQL, and what it logged (auto_explain's plans among it). */
export interface StaffApiPostgres {
  url: string;
  /** Whether this is the bench's own server, whose log (and so auto_explain's plans) the bench can read. */
  ownServer: boolean;
  /** Starts collecting the server's log output; `take` returns what came since and stops. */
  tapLog(): { take(): string };
  /** Drops and creates the database (the bench's own server only): a schema from scratch for a new seed. */
  recreateDatabase(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Settings of the bench's own server. Larger buffers and WAL than initdb's defaults, as a server holding
 * a few GB would be given (the seeding writes ~4 GB without a checkpoint in the middle); auto_explain and
 * pg_stat_statements loaded, auto_explain silent (its default) until the bench asks it for plans with
 * ALTER SYSTEM, which a setting given on the command line would override.
 */
const SETTINGS = {
  shared_buffers: '1GB',
  max_wal_size: '8GB',
  checkpoint_timeout: '30min',
  wal_level: 'minimal',
  max_wal_senders: '0',
  shared_preload_libraries: 'auto_explain,pg_stat_statements',
  log_line_prefix: '%m [%p] ',
};

/**
 * BENCH_DATABASE_URL when set; otherwise an embedded PostgreSQL whose data stays in `dataDir` between runs
 * (so the seeded database is reused), with its log written to `logFile`.
 */
export async function startStaffApiPostgres(options: {
  dataDir: string;
  logFile: string;
}): Promise<StaffApiPostgres> {
  if (process.env.BENCH_DATABASE_URL) {
    return {
      url: process.env.BENCH_DATABASE_URL,
      ownServer: false,
      tapLog: () => ({ take: () => '' }),
      recreateDatabase: () => Promise.reject(new Error('BENCH_DATABASE_URL: the bench drops no database')),
      stop: async () => {},
    };
  }
  await mkdir(path.dirname(options.logFile), { recursive: true });
  const log = createWriteStream(options.logFile, { flags: 'a' });
  let tap: string[] | null = null;
  const server = await startPostgresServer({
    name: 'gatehouse-bench-staff-api-pg',
    password: 'bench',
    dataDir: options.dataDir,
    settings: SETTINGS,
    onLog: (text) => {
      log.write(text);
      tap?.push(text);
    },
  });
  const asAdmin = async (work: (admin: pg.Client) => Promise<unknown>) => {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await work(admin).finally(() => admin.end());
  };
  await asAdmin(async (admin) => {
    const { rowCount } = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'gatehouse'");
    if (rowCount === 0) await admin.query('CREATE DATABASE gatehouse');
  });
  return {
    url: server.adminUrl.replace(/\/postgres$/, '/gatehouse'),
    ownServer: true,
    tapLog: () => {
      const collected: string[] = [];
      tap = collected;
      return {
        take: () => {
          tap = null;
          return collected.join('');
        },
      };
    },
    recreateDatabase: () =>
      asAdmin(async (admin) => {
        await admin.query('DROP DATABASE IF EXISTS gatehouse WITH (FORCE)');
        await admin.query('CREATE DATABASE gatehouse');
      }),
    stop: async () => {
      await server.stop();
      await new Promise((resolve) => log.end(resolve));
    },
  };
}

/** The schema of the plugins the benchmark runs, applied by the CLI as a deployment would. */
export async function migrate(root: string, databaseUrl: string): Promise<void> {
  await promisify(execFile)(process.execPath, [path.join(root, 'app/cli.ts'), 'migrate'], {
    env: {
      ...process.env,
      APP_ENV: 'production',
      API_AUTH_MODE: 'disabled',
      AUTH_MODE: 'local',
      AUTH_SECRET: 'x',
      DATABASE_URL: databaseUrl,
      GATEWAY_PLUGINS: 'auth,messaging',
      LOG_LEVEL: 'warn',
    },
  });
}
