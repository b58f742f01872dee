import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';

export const CLI = fileURLToPath(new URL('../../app/cli.ts', import.meta.url));
export const FIXTURE_CLI = fileURLToPath(new URL('../fixtures/serve-with-fixtures.ts', import.meta.url));

/** The settings every spawned test gateway starts from: loopback, random ports, gate off. */
export function processEnv(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    APP_ENV: 'test',
    API_AUTH_MODE: 'disabled',
    AUTH_MODE: 'local',
    AUTH_SECRET: 'test-auth-secret-0123456789abcdef',
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
    ...overrides,
  };
}

/** A spawned child, as `endsWithTest` ends it. */
export interface EndableProcess {
  child: ChildProcess;
  /** Resolves once the process ends. */
  exited: Promise<unknown>;
  /** Whether the child leads a process group of its own (spawned `detached`): ending it ends the group. */
  group?: boolean;
}

export interface GatewayProcess extends EndableProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  /** Resolves when the output matches, rejects if the process exits first. */
  waitForOutput(pattern: RegExp): Promise<void>;
}

/** Spawns the real CLI (or the fixture entry) as its own process with exactly the given environment. */
export function spawnGateway(options: {
  args: string[];
  env: Record<string, string>;
  entry?: string;
  /** Its own process group, as a terminal's foreground job has: `process.kill(-pid, ...)` signals it all. */
  detached?: boolean;
}): GatewayProcess {
  const child = spawn(process.execPath, [options.entry ?? CLI, ...options.args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    detached: options.detached ?? false,
  });
  return observe(child, options.detached ?? false);
}

/**
 * Ties a spawned process to the running test: when the test ends (passed, failed or timed out: vitest runs the
 * hook in every case) the process is killed unless it has exited, and the hook waits for its exit, so no child
 * outlives its test. A child leading a process group of its own (`npm`, a detached gateway) takes its group with
 * it: what it started is killed too, even when the leader has already exited. Call it right after spawning,
 * before awaiting anything; cleanup that must come after the kill goes in an `onTestFinished` hook registered
 * before the spawn (vitest runs those hooks in reverse order).
 */
export function endsWithTest<T extends EndableProcess>(spawned: T): T {
  onTestFinished(async () => {
    const { child } = spawned;
    if (spawned.group === true && child.pid !== undefined) killGroup(child.pid);
    else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await spawned.exited;
  });
  return spawned;
}

/** SIGKILL to every process of the group `pgid` leads; nothing when none is left. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs the real `npm` from the repository root, as the README tells a newcomer to (`npm start`,
 * `npm run gatehouse -- ...`), with only PATH, HOME and the given variables, in its own process group.
 */
export function spawnNpm(options: { args: string[]; env: Record<string, string> }): GatewayProcess {
  const child = spawn('npm', options.args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    detached: true,
  });
  return observe(child, true);
}

function observe(child: ChildProcessWithoutNullStreams, group: boolean): GatewayProcess {
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const listener of listeners) listener();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    group,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out) || pattern.test(err)) {
            listeners.delete(check);
            resolve();
          }
        };
        listeners.add(check);
        check();
        void exited.then((code) => {
          if (listeners.has(check)) {
            listeners.delete(check);
            reject(
              new Error(
                `process exited (${code}) before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err}`,
              ),
            );
          }
        });
      });
    },
  };
}

/**
 * Whether a process exists and is not a zombie (a zombie has exited; it only waits for its parent to
 * collect its status). Reads /proc where there is one.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch (err) {
    // No /proc (not Linux): kill(0) answered. ENOENT: it went away between the two calls.
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
