import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';
import type { Logger } from 'pino';
import { LEGACY_CHECKSUMS, type LegacyChecksum } from './legacy-checksums.ts';
import { checksum, wholeFileChecksum } from './migration-checksum.ts';

/**
 * Plain-SQL migrations (ADR 0002, a layout deployments rely on): files `NNNN_name.sql` in a folder per scope
 * (`migrations/core`, `migrations/<plugin id>`), applied in name order at boot under a Postgres advisory
 * lock so replicas booting together apply each file once. Each applied file is recorded with a SHA-256
 * checksum of its statements (comment lines and blank lines left out: migration-checksum.ts); an applied
 * file whose statements changed on disk refuses boot, because the database no longer matches what the code
 * believes the schema is.
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
  /** Applied migrations whose recorded checksum was rewritten from the former whole-file rule. */
  upgraded: string[];
}

/** What the runner does with the database's migrations. */
export interface MigrationPlan {
  /** Files not applied yet, in order. */
  pending: MigrationFile[];
  /** Applied files, unchanged, whose row still holds a checksum of the former whole-file rule. */
  upgrades: MigrationFile[];
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
    const { pending, upgrades } = plan(files, applied);
    await upgradeChecksums(client, upgrades, logger);

    const report: MigrationReport = {
      applied: [],
      alreadyApplied: files.length - pending.length,
      upgraded: upgrades.map((file) => `${file.scope}/${file.name}`),
    };
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
 * Rewrites the rows that hold a former whole-file checksum to the current one, in one transaction, under
 * the advisory lock the caller holds: the next boot finds them current, and this is logged once.
 */
async function upgradeChecksums(client: pg.PoolClient, upgrades: readonly MigrationFile[], logger: Logger) {
  if (upgrades.length === 0) return;
  const ids = upgrades.map((file) => `${file.scope}/${file.name}`);
  try {
    await client.query('BEGIN');
    for (const file of upgrades) {
      await client.query('UPDATE gatehouse_migrations SET checksum = $3 WHERE scope = $1 AND name = $2', [
        file.scope,
        file.name,
        file.checksum,
      ]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    const message = `rewriting the checksums of ${ids.join(', ')} failed: ${(err as Error).message}`;
    throw new MigrationError(message, { cause: err });
  }
  logger.info(
    { migrations: ids },
    'migration checksums rewritten to the rule that leaves comments out (docs/adr/0002-migrations-layout.md)',
  );
}

/**
 * Decides what to apply and which recorded checksums to rewrite, refusing two states that mean the code
 * and the database disagree: an applied file whose statements changed, and a new file sorted before one
 * already applied in its scope (it would run out of order on existing databases but in order on fresh
 * ones). `legacy`: the former checksums accepted per file (legacy-checksums.ts).
 */
export function plan(
  files: readonly MigrationFile[],
  applied: ReadonlyMap<string, string>,
  legacy: ReadonlyMap<string, LegacyChecksum> = LEGACY_CHECKSUMS,
): MigrationPlan {
  const problems: string[] = [];
  const pending: MigrationFile[] = [];
  const upgrades: MigrationFile[] = [];
  const lastAppliedInScope = new Map<string, string>();
  for (const file of files) {
    const id = `${file.scope}/${file.name}`;
    const recorded = applied.get(id);
    if (recorded === undefined) {
      pending.push(file);
    } else {
      const standing = compare(file, recorded, legacy.get(id));
      if (standing === 'former rule') upgrades.push(file);
      if (standing === 'changed') {
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
  return { pending, upgrades };
}

/**
 * How an applied file's recorded checksum stands against the file on disk. `former rule`: the database
 * recorded, under the whole-file rule, a file whose statements are still those on disk — the whole-file
 * checksum of the file on disk itself (it has not changed at all), or the one the legacy table lists for
 * it while the file keeps the statements that entry names.
 */
function compare(
  file: MigrationFile,
  recorded: string,
  legacy: LegacyChecksum | undefined,
): 'current' | 'former rule' | 'changed' {
  if (recorded === file.checksum) return 'current';
  if (recorded === wholeFileChecksum(file.sql)) return 'former rule';
  const listed = legacy !== undefined && recorded === legacy.wholeFile && file.checksum === legacy.statements;
  return listed ? 'former rule' : 'changed';
}
