import pg from 'pg';

/** One statement's share of PostgreSQL's time, from pg_stat_statements. */
export interface StatementCost {
  calls: number;
  totalMs: number;
  meanMs: number;
  query: string;
}

async function withClient<T>(url: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return await work(db);
  } finally {
    await db.end();
  }
}

/**
 * Starts counting statements afresh (BENCH_PGSS=1 loads pg_stat_statements into the bench's PostgreSQL,
 * bench/lib/postgres.ts).
 */
export function resetStatements(url: string): Promise<void> {
  return withClient(url, async (db) => {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query('SELECT pg_stat_statements_reset()');
  });
}

/** The `limit` statements that took PostgreSQL the most time since the reset. */
export function costliestStatements(url: string, limit: number): Promise<StatementCost[]> {
  return withClient(url, async (db) => {
    const { rows } = await db.query<{ calls: string; total: number; mean: number; query: string }>(
      `SELECT calls, total_exec_time AS total, mean_exec_time AS mean,
              left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query
         FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      calls: Number(row.calls),
      totalMs: Math.round(row.total),
      meanMs: Math.round(row.mean * 1000) / 1000,
      query: row.query,
    }));
  });
}
