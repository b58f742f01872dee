/**
 * migrations/auth/0004: account emails stored before the canonical form (as typed, matched with lower())
 * become canonical, and the unique index compares them exactly. Run on a real database migrated up to
 * 0003 with rows as the earlier code wrote them.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsDir } from '../../../gateway/src/plugin-api.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { migrate } from '../../../test/support/core.ts';

let db: TestDatabase;
let before: string;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
  before = await mkdtemp(path.join(tmpdir(), 'auth-migrations-'));
  for (const name of await readdir(migrationsDir('auth')))
    if (name < '0004') await cp(path.join(migrationsDir('auth'), name), path.join(before, name));
  await migrate(
    db.pool,
    [
      { scope: 'core', dir: migrationsDir('core') },
      { scope: 'auth', dir: before },
    ],
    silent,
  );
});
afterAll(async () => {
  await db?.drop();
  if (before) await rm(before, { recursive: true, force: true });
});

describe('migration auth/0004', () => {
  it('stores every email in its canonical form; a clash or a value without one stays, unreachable', async () => {
    const insert = (email: string, createdAt: string) =>
      db.pool.query<{ id: string }>(
        'INSERT INTO auth_users (email, created_at) VALUES ($1, $2) RETURNING id',
        [email, createdAt],
      );
    await insert('Ada@Example.COM', '2026-01-01');
    await insert('ＧＲＡＣＥ@example.com', '2026-01-02');
    // Two rows the old index let coexist (it folded case, not width): the canonical one keeps its address.
    await insert('ａlan@example.com', '2026-01-03');
    await insert('alan@example.com', '2026-01-04');
    // Neither canonical: the one typed in ASCII gets the address, else the older one.
    await insert('ｔｏｍ@example.com', '2026-01-05');
    await insert('Tom@example.com', '2026-01-06');
    await insert('ｓａｍ@example.com', '2026-01-07');
    await insert('ｓａM@example.com', '2026-01-08');
    await insert('çava@example.com', '2026-01-09');

    await migrate(
      db.pool,
      [
        { scope: 'core', dir: migrationsDir('core') },
        { scope: 'auth', dir: migrationsDir('auth') },
      ],
      silent,
    );

    const { rows } = await db.pool.query<{ email: string }>(
      'SELECT email FROM auth_users ORDER BY created_at',
    );
    expect(rows.map((row) => row.email)).toEqual([
      'ada@example.com',
      'grace@example.com',
      'ａlan@example.com',
      'alan@example.com',
      'ｔｏｍ@example.com',
      'tom@example.com',
      'sam@example.com',
      'ｓａM@example.com',
      'çava@example.com',
    ]);
    // The unique index compares exactly now.
    await expect(db.pool.query("INSERT INTO auth_users (email) VALUES ('ada@example.com')")).rejects.toThrow(
      /auth_users_email_key/,
    );
    const { rows: distinct } = await db.pool.query(
      "INSERT INTO auth_users (email) VALUES ('Ada@example.com') RETURNING email",
    );
    expect(distinct).toHaveLength(1);
  });
});
