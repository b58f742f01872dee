import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../gateway/src/cli.ts', import.meta.url));
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

export interface GatewayProcess {
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
}): GatewayProcess {
  const child = spawn(process.execPath, [options.entry ?? CLI, ...options.args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
  });
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
