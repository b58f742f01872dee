import pino from 'pino';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { createDatabase, namedStatement, type Database } from './database.ts';

let test: TestDatabase;
let db: Database;

beforeAll(async () => {
  test = await createTestDatabase({ empty: true });
  // One connection: every statement below runs on the same backend, whose prepared statements it lists.
  db = createDatabase({ connectionString: test.url, max: 1, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await db?.pool.end();
  await test?.drop();
});

describe('named statements', () => {
  it('are prepared once per connection and answer with each call’s own values, pooled or in a transaction', async () => {
    const statement = () => namedStatement('test.add-one', 'SELECT $1::int + 1 AS n');
    const answers = await Promise.all([1, 2, 3].map((n) => db.query<{ n: number }>(statement(), [n])));
    expect(answers.map((answer) => answer.rows[0]?.n)).toEqual([2, 3, 4]);
    const inTransaction = await db.transaction((client) => client.query<{ n: number }>(statement(), [41]));
    expect(inTransaction.rows[0]?.n).toBe(42);
    const { rows } = await db.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE name LIKE 'test.%'",
    );
    expect(rows.map((row) => row.name)).toEqual(['test.add-one']);
  });

  it('leave the statement object given untouched, so one object may serve concurrent calls', async () => {
    const shared = namedStatement('test.echo', 'SELECT $1::text AS v');
    const answers = await Promise.all(['a', 'b'].map((v) => db.query<{ v: string }>(shared, [v])));
    expect(answers.map((answer) => answer.rows[0]?.v)).toEqual(['a', 'b']);
    expect(shared).toEqual({ name: 'test.echo', text: 'SELECT $1::text AS v' });
  });
});

describe('a connection lost while a client is checked out', () => {
  it('fails the transaction to its caller and leaves the pool usable; nothing is thrown uncaught', async () => {
    const own = createDatabase({ connectionString: test.url, max: 2, logger: pino({ level: 'silent' }) });
    const admin = new pg.Client({ connectionString: test.url });
    await admin.connect();
    try {
      const lost = own.transaction(async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        const ended = new Promise((resolve) => client.once('end', resolve));
        // What a PostgreSQL restart or failover does to this client's backend, between two statements.
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
        await ended;
        return client.query('SELECT 1');
      });
      await expect(lost).rejects.toThrow();
      expect((await own.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await admin.end();
      await own.pool.end();
    }
  });
});
