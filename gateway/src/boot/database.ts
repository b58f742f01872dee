import type { Logger } from 'pino';
import { BootError } from '../boot-error.ts';
import type { CoreConfig } from '../config/core-config.ts';
import { createDatabase, type Database } from '../db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../db/embedded.ts';
import { migrate, MigrationError, type MigrationReport, type MigrationSource } from '../db/migrate.ts';
import type { ResolvedPlugin } from '../plugin/loader.ts';
import { migrationsDir } from '../plugin/migrations-dir.ts';

/**
 * The database for this process: DATABASE_URL, or the embedded PostgreSQL when it is unset. `join`: use
 * the embedded server already running on DATA_DIR, if any (CLI commands beside a running gateway).
 */
export async function openDatabase(
  core: CoreConfig,
  logger: Logger,
  options: { join: boolean },
): Promise<{ db: Database; embedded?: EmbeddedPostgresHandle }> {
  if (core.DATABASE_URL !== undefined) {
    return {
      db: createDatabase({ connectionString: core.DATABASE_URL, max: core.DATABASE_POOL_MAX, logger }),
    };
  }
  logger.info('DATABASE_URL is unset: using the embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({
    dataDir: core.DATA_DIR,
    port: core.EMBEDDED_PG_PORT,
    logger,
    join: options.join,
  });
  const db = createDatabase({
    connectionString: embedded.connectionString,
    max: core.DATABASE_POOL_MAX,
    logger,
  });
  return { db, embedded };
}

/** Core migrations first, then each plugin's in registration (dependency) order. */
export function migrationSources(plugins: readonly ResolvedPlugin[]): MigrationSource[] {
  return [
    { scope: 'core', dir: migrationsDir('core') },
    ...plugins.flatMap(({ plugin }) =>
      plugin.migrations ? [{ scope: plugin.id, dir: plugin.migrations }] : [],
    ),
  ];
}

export async function runMigrationsOrRefuse(
  db: Database,
  sources: readonly MigrationSource[],
  logger: Logger,
): Promise<MigrationReport> {
  try {
    return await migrate(db.pool, sources, logger);
  } catch (err) {
    if (err instanceof MigrationError) throw new BootError(err.message.split('\n'));
    const unreachable = describeConnectionFailure(err, db);
    if (unreachable) throw new BootError([unreachable]);
    throw err;
  }
}

/** Errors that mean "the database named by DATABASE_URL cannot be used", by Node or Postgres code. */
const CONNECTION_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
]);

/** A boot refusal naming host, port and database (never the password) when the database is unreachable. */
function describeConnectionFailure(err: unknown, db: Database): string | null {
  const code = (err as { code?: unknown }).code;
  const timedOut = err instanceof Error && /timeout/i.test(err.message);
  if (!timedOut && (typeof code !== 'string' || !CONNECTION_FAILURES.has(code))) return null;
  return `DATABASE_URL: cannot use the database at ${db.target} (${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message})`;
}
