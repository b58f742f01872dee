import pg from 'pg';
import type { Logger } from 'pino';

/**
 * A statement PostgreSQL keeps prepared on each connection under `name` after its first use, so later runs skip
 * parsing and planning (it may then use a generic plan). One name, one text: the text must never vary.
 */
export interface NamedStatement {
  readonly name: string;
  readonly text: string;
}

/** A statement to prepare once per connection (see `NamedStatement`); `name` must be unique to `text`. */
export function namedStatement(name: string, text: string): NamedStatement {
  return { name, text };
}

/** What the core hands plugins: the pool, plus the two helpers almost every store needs. */
export interface Database {
  readonly pool: pg.Pool;
  /** `host:port/database` of the connection string, without credentials: safe for messages. */
  readonly target: string;
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string | NamedStatement,
    values?: readonly unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Runs `work` in one transaction; rolls back and rethrows when it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/**
 * What a store sends its statements through: the database (`ctx.db`), its pool, or the client of a transaction
 * the caller holds, so one store function serves a lone write and a write inside a transaction.
 */
export type Queryable = Pick<Database, 'query'>;

export interface PoolOptions {
  connectionString: string;
  max: number;
  logger: Logger;
}

export function createDatabase(options: PoolOptions): Database {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max,
    application_name: 'gatehouse',
    // A database that does not answer must fail a request (and a boot) in bounded time, not hang it.
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its connection (Postgres restart, failover) must not crash the process;
  // the pool replaces it, and the next query reports the failure to its caller.
  pool.on('error', (err) =>
    options.logger.warn({ err: { message: err.message } }, 'idle database client failed'),
  );
  // A client checked out of the pool (a transaction, an advisory lock held across other work) has no listener
  // of the pool's: its connection dropping would otherwise be an uncaught 'error' event, ending the process. The
  // statement in flight fails to its caller, and the pool discards the client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const url = new URL(options.connectionString);
  return {
    pool,
    target: `${url.hostname}:${url.port || '5432'}${url.pathname}`,
    // A fresh config per call: pg writes the values into the object it is given.
    query: (text, values) =>
      pool.query(typeof text === 'string' ? text : { ...text }, values as unknown[] | undefined),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}
