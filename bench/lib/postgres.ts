import pg from 'pg';
import { startPostgresServer } from '../../test/support/postgres-server.ts';

/** One PostgreSQL for all gateway processes of a bench run (or BENCH_DATABASE_URL). */
export async function startBenchPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  const server = await startPostgresServer({
    name: 'gatehouse-bench-pg',
    password: 'bench',
    settings: process.env.BENCH_PGSS ? { shared_preload_libraries: 'pg_stat_statements' } : {},
  });
  const admin = new pg.Client({ connectionString: server.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE gatehouse');
  await admin.end();
  return { url: server.adminUrl.replace(/\/postgres$/, '/gatehouse'), stop: () => server.stop() };
}
