import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';

/**
 * Plain-SQL migrations (ADR 0002, a layout deployments rely on): files `NNNN_name.sql` in a folder per scope
 * (`migrations/core`, `migrations/<plugin id>`), applied in name order at boot under a Postgres advisory
 * lock so replicas booting together apply each file once. Each applied file is recorded with a SHA-256
 * checksum; an applied file that changed on disk refuses boot, because the database no longer matches
 * what the code believes the schema is.
 */
export interface MigrationSource {
  /** `core` or a plugin id. */
  scope: string;
  dir: string;
}

export interface MigrationFile {
  scope: string;
  name: string;
  checksum: string;
  sql: string;
}

export interface MigrationReport {
  applied: string[];
  alreadyApplied: number;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
}

/** Arbitrary but fixed: the ASCII of "gatehous" read as a bigint, the key for pg_advisory_lock. */
const LOCK_KEY = BigInt('0x67617465686f7573').toString();
const FILE_PATTERN = /^\d{4}_[a-z0-9_]+\.sql$/;

export async function readMigrations(sources: readonly MigrationSource[]): Promise<MigrationFile[]> {
  const files: MigrationFile[] = [];
  for (const source of sources) {
    const names = (await readdir(source.dir)).filter((name) => name.endsWith('.sql')).sort();
    for (const name of names) {
      if (!FILE_PATTERN.test(name)) {
        throw new MigrationError(
          `migration ${source.scope}/${name}: name must look like 0001_create_things.sql`,
        );
      }
      const sql = await readFile(path.join(source.dir, name), 'utf8');
      files.push({ scope: source.scope, name, sql, checksum: checksum(sql) });
    }
  }
  return files;
}

/** Line endings are normalised so a checkout with CRLF does not look like an edited migration. */
export function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

export async function migrate(
  pool: pg.Pool,
  sources: readonly MigrationSource[],
  logger: Logger,
): Promise<MigrationReport> {
  const files = await readMigrations(sources);
  const client = await pool.connect();
  try {
    // The lock comes first: even creating the bookkeeping table races between replicas otherwise.
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS gatehouse_migrations (
      scope text NOT NULL,
      name text NOT NULL,
      checksum text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (scope, name)
    )`);
    const { rows } = await client.query<{ scope: string; name: string; checksum: string }>(
      'SELECT scope, name, checksum FROM gatehouse_migrations',
    );
    const applied = new Map(rows.map((row) => [`${row.scope}/${row.name}`, row.checksum]));
    const pending = plan(files, applied);

    const report: MigrationReport = { applied: [], alreadyApplied: files.length - pending.length };
    for (const file of pending) {
      const id = `${file.scope}/${file.name}`;
      try {
        await client.query('BEGIN');
        await client.query(file.sql);
        await client.query('INSERT INTO gatehouse_migrations (scope, name, checksum) VALUES ($1, $2, $3)', [
          file.scope,
          file.name,
          file.checksum,
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw new MigrationError(`migration ${id} failed: ${(err as Error).message}`, { cause: err });
      }
      report.applied.push(id);
      logger.info({ migration: id }, 'migration applied');
    }
    return report;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

/**
 * Decides what to apply, refusing two states that mean the code and the database disagree: an applied
 * file whose content changed, and a new file sorted before one already applied in its scope (it would
 * run out of order on existing databases but in order on fresh ones).
 */
export function plan(files: readonly MigrationFile[], applied: ReadonlyMap<string, string>): MigrationFile[] {
  const problems: string[] = [];
  const pending: MigrationFile[] = [];
  const lastAppliedInScope = new Map<string, string>();
  for (const file of files) {
    const id = `${file.scope}/${file.name}`;
    const recorded = applied.get(id);
    if (recorded === undefined) {
      pending.push(file);
    } else {
      if (recorded !== file.checksum) {
        problems.push(
          `migration ${id} was changed after it was applied (checksum ${recorded.slice(0, 12)}… in the database, ${file.checksum.slice(0, 12)}… on disk); add a new migration instead of editing an applied one`,
        );
      }
      lastAppliedInScope.set(file.scope, file.name);
    }
  }
  for (const file of pending) {
    const last = lastAppliedInScope.get(file.scope);
    if (last !== undefined && file.name < last) {
      problems.push(
        `migration ${file.scope}/${file.name} is new but sorts before the applied ${file.scope}/${last}; rename it to come last`,
      );
    }
  }
  if (problems.length > 0) throw new MigrationError(problems.join('\n'));
  return pending;
}
