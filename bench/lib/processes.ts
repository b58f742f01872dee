import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import path from 'node:path';

export { freePort } from '../../test/support/process.ts';

/**
 * A process a benchmark started (the gateway, a baseline server in bench/baselines/, the operator): where it
 * answers, and how to stop it. In the benchmarks, "target" means only a goal a figure must meet.
 */
export interface BenchProcess {
  name: string;
  url: string;
  /** The process id, for readings from /proc (memory, CPU). */
  pid: number;
  stop(): Promise<void>;
}

/** Starts a Node process and waits until `ready()` says it answers. Output goes to `logFile`. */
export async function startProcess(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  port: number;
  readyPath: string;
}): Promise<BenchProcess> {
  // Output goes straight to a file descriptor, not through a pipe this process would have to pump.
  mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'w');
  const child: ChildProcess = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []), ...options.args],
    {
      env: { ...process.env, ...options.env, PORT: String(options.port) },
      stdio: ['ignore', log, log],
    },
  );
  const url = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`${options.name} exited with ${child.exitCode}; see ${options.logFile}`);
    try {
      const res = await fetch(url + options.readyPath);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`${options.name} did not become ready; see ${options.logFile}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name: options.name,
    url,
    pid: child.pid as number,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
