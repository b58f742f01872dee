/**
 * Migration checksums cover statements, not comments (ADR 0002, "Checksums"), on a real database: a
 * database migrated while the runner still recorded whole-file checksums boots with the migrations as they
 * are now, whose comments were rewritten since, and its rows are rewritten once; a change to a statement is
 * still refused, whichever rule recorded the row.
 *
 * test/fixtures/migrations-with-whole-file-checksums.json holds every migration byte for byte as it stood on
 * the last commit with the whole-file rule (`git show 757ac61:migrations/<scope>/<name>`): the files such
 * databases were migrated with.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { LEGACY_CHECKSUMS } from '../src/db/legacy-checksums.ts';
import { checksum } from '../src/db/migration-checksum.ts';
import { migrate, MigrationError, readMigrations, type MigrationSource } from '../src/db/migrate.ts';
import { migrationsDir } from '../src/plugin/migrations-dir.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { endsWithTest, processEnv, REPO_ROOT, spawnGateway } from '../../test/support/process.ts';

/** The scopes with migrations, in the order boot applies them with the default plugins. */
const SCOPES = ['core', 'auth', 'kyc', 'messaging'] as const;
const silent = pino({ level: 'silent' });
const LISTENING = /"msg":"gateway listening"/;
const REWRITTEN = /"msg":"migration checksums rewritten/g;
const PROCESS_TEST_TIMEOUT_MS = 120_000;

let before: Record<string, string>;
let scratch: string;

beforeAll(async () => {
  const fixture = path.join(REPO_ROOT, 'test/fixtures/migrations-with-whole-file-checksums.json');
  before = JSON.parse(await readFile(fixture, 'utf8')) as Record<string, string>;
  scratch = await mkdtemp(path.join(tmpdir(), 'gatehouse-migration-checksums-'));
});
afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const currentSources = (): MigrationSource[] => SCOPES.map((scope) => ({ scope, dir: migrationsDir(scope) }));

/** Writes `files` (`<scope>/<name>` → content) as migration folders under a fresh directory. */
async function migrationFolders(
  files: Record<string, string>,
  scopes: readonly string[] = SCOPES,
): Promise<MigrationSource[]> {
  const root = await mkdtemp(path.join(scratch, 'set-'));
  for (const [id, content] of Object.entries(files)) {
    await mkdir(path.join(root, path.dirname(id)), { recursive: true });
    await writeFile(path.join(root, id), content);
  }
  return scopes.map((scope) => ({ scope, dir: path.join(root, scope) }));
}

/** The migrations on disk now, as `<scope>/<name>` → content, with `change` applied to one of them. */
async function currentFiles(change?: {
  id: string;
  from: string;
  to: string;
}): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of await readMigrations(currentSources())) files[`${file.scope}/${file.name}`] = file.sql;
  if (change) {
    const content = files[change.id] ?? '';
    expect(content).toContain(change.from);
    files[change.id] = content.replace(change.from, change.to);
  }
  return files;
}

/**
 * A database as the former runner left it: every migration of the fixture (and of `extra`) applied, each
 * row holding the SHA-256 of its whole file (computed here, independently of the runner).
 */
async function migratedWithWholeFileChecksums(
  extra: Record<string, string> = {},
  scopes: readonly string[] = SCOPES,
): Promise<TestDatabase> {
  const db = await createTestDatabase({ empty: true });
  onTestFinished(() => db.drop());
  const files = { ...before, ...extra };
  await migrate(db.pool, await migrationFolders(files, scopes), silent);
  for (const [id, content] of Object.entries(files)) {
    const [scope, name] = id.split('/');
    await db.pool.query('UPDATE gatehouse_migrations SET checksum = $3 WHERE scope = $1 AND name = $2', [
      scope,
      name,
      sha256(content),
    ]);
  }
  return db;
}

async function recordedChecksums(db: TestDatabase): Promise<Record<string, string>> {
  const { rows } = await db.pool.query<{ id: string; checksum: string }>(
    "SELECT scope || '/' || name AS id, checksum FROM gatehouse_migrations ORDER BY scope, name",
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.checksum]));
}

/** A statement of core/0001 changed: what an edit that must be refused looks like. */
const STATEMENT_CHANGE = {
  id: 'core/0001_audit_log.sql',
  from: '  actor text,',
  to: '  actor varchar(200),',
};
const CHANGED_ERROR = 'migration core/0001_audit_log.sql was changed after it was applied';

describe('a database migrated when checksums covered whole files', () => {
  it(
    'boots with the rewritten migrations; its rows get the current checksums, rewritten once',
    async () => {
      const db = await migratedWithWholeFileChecksums();
      // The comments of most files changed since: the former rule alone would refuse this database.
      const current = await currentFiles();
      const edited = Object.keys(before).filter((id) => before[id] !== current[id]);
      expect(edited.length).toBeGreaterThan(0);

      const env = processEnv({ DATABASE_URL: db.url });
      const gateway = endsWithTest(spawnGateway({ args: ['serve'], env }));
      await gateway.waitForOutput(LISTENING);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toBe(0);
      expect(gateway.stdout().match(REWRITTEN)).toHaveLength(1);
      // None of the migrations it had is applied again (those written since, new plugins' tables, are).
      const applied = [...gateway.stdout().matchAll(/"migration":"([^"]+)","msg":"migration applied"/g)].map(
        (match) => match[1] ?? '',
      );
      expect(applied.filter((id) => id in before)).toEqual([]);

      const expected = Object.fromEntries(Object.entries(current).map(([id, sql]) => [id, checksum(sql)]));
      // Rows of migrations written since the fixture (new plugins' tables) are there too, with their checksums.
      const recorded = await recordedChecksums(db);
      expect(Object.fromEntries(Object.keys(expected).map((id) => [id, recorded[id]]))).toEqual(expected);

      const again = endsWithTest(spawnGateway({ args: ['migrate'], env }));
      expect(await again.exited).toBe(0);
      expect(again.stdout()).toMatch(/^0 migration\(s\) applied, [1-9]\d* already applied/m);
      expect(again.stdout().match(REWRITTEN)).toBeNull();
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('accepts an unchanged file whose row holds its whole-file checksum, listed or not', async () => {
    const extra =
      'CREATE TABLE extra_things (id int);\n-- A file the table of former checksums does not list.\n';
    const scopes = [...SCOPES, 'extra'];
    const db = await migratedWithWholeFileChecksums({ 'extra/0001_things.sql': extra }, scopes);
    const withExtra = await migrationFolders({ ...before, 'extra/0001_things.sql': extra }, scopes);

    const report = await migrate(db.pool, withExtra, silent);
    expect(report.applied).toEqual([]);
    expect([...report.upgraded].sort()).toEqual([...Object.keys(before), 'extra/0001_things.sql'].sort());
    expect((await recordedChecksums(db))['extra/0001_things.sql']).toBe(checksum(extra));
  });

  it('refuses a changed statement, and rewrites no row', async () => {
    const db = await migratedWithWholeFileChecksums();
    const recorded = await recordedChecksums(db);
    const changed = await migrationFolders(await currentFiles(STATEMENT_CHANGE));
    const attempt = migrate(db.pool, changed, silent);
    await expect(attempt).rejects.toThrow(MigrationError);
    await expect(attempt).rejects.toThrow(CHANGED_ERROR);
    expect(await recordedChecksums(db)).toEqual(recorded);
  });
});

describe('a database migrated under the current rule', () => {
  it('accepts reworded comments and blank lines, refuses a changed statement', async () => {
    const db = await createTestDatabase({ empty: true });
    onTestFinished(() => db.drop());
    await migrate(db.pool, currentSources(), silent);
    const recorded = await recordedChecksums(db);

    const reworded = await migrationFolders(
      await currentFiles({ id: 'core/0001_audit_log.sql', from: '\n-- ', to: '\n\n--   Reworded:\n-- ' }),
    );
    const report = await migrate(db.pool, reworded, silent);
    expect(report).toMatchObject({ applied: [], upgraded: [] });
    expect(await recordedChecksums(db)).toEqual(recorded);

    const changed = await migrationFolders(await currentFiles(STATEMENT_CHANGE));
    await expect(migrate(db.pool, changed, silent)).rejects.toThrow(CHANGED_ERROR);
  });
});

describe('the table of former checksums', () => {
  it("lists every fixture file's whole-file checksum, and the current checksum of the file on disk", async () => {
    const current = await currentFiles();
    expect([...LEGACY_CHECKSUMS.keys()].sort()).toEqual(Object.keys(before).sort());
    for (const [id, content] of Object.entries(before)) {
      const entry = LEGACY_CHECKSUMS.get(id);
      expect(entry?.wholeFile, id).toBe(sha256(content));
      // The rewrite touched comments only: the file's statements are those databases applied.
      expect(entry?.statements, id).toBe(checksum(content));
      expect(checksum(current[id] ?? ''), id).toBe(checksum(content));
    }
  });
});
