import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { freePort, startProcess, type BenchProcess } from './processes.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(root, 'app/cli.ts');

export interface OperatorProcess extends BenchProcess {
  /** The operator's /metrics: each metric summed over its series by name, and each series by `name{labels}`. */
  metrics(): Promise<Map<string, number>>;
}

/**
 * `gatehouse operator` as its own process, as it runs in its pod: the real command (default reconciler,
 * leader election, informers, work queue, pino logs at info to `logFile`), against the cluster of
 * `kubeconfigPath`.
 */
export async function startOperatorProcess(options: {
  kubeconfigPath: string;
  namespace: string;
  identity: string;
  logFile: string;
}): Promise<OperatorProcess> {
  const port = await freePort();
  const started = await startProcess({
    name: 'gatehouse operator',
    args: [
      CLI,
      'operator',
      '--namespace',
      options.namespace,
      '--identity',
      options.identity,
      '--port',
      String(port),
    ],
    env: { KUBECONFIG: options.kubeconfigPath, LOG_LEVEL: 'info' },
    logFile: options.logFile,
    port,
    readyPath: '/healthz',
  });
  return {
    ...started,
    async metrics() {
      const text = await (await fetch(`${started.url}/metrics`)).text();
      return sumByName(text);
    },
  };
}

/** Prometheus text exposition → the sum of each metric's series, by metric name (and name{labels}). */
function sumByName(text: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    const series = line.slice(0, space);
    const value = Number(line.slice(space + 1));
    if (!Number.isFinite(value)) continue;
    const brace = series.indexOf('{');
    const name = brace === -1 ? series : series.slice(0, brace);
    sums.set(name, (sums.get(name) ?? 0) + value);
    if (brace !== -1) sums.set(series, value);
  }
  return sums;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** performance.now() when the process was spawned, and when it exited. */
  spawnedAt: number;
  exitedAt: number;
}

/** `gatehouse ARGS` as a process, as an SRE's shell runs it: only PATH, HOME and KUBECONFIG. */
export function runGatehouse(args: readonly string[], kubeconfigPath: string): Promise<CliRun> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', KUBECONFIG: kubeconfigPath },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exitedAt = Number.NaN;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.once('exit', () => (exitedAt = performance.now()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr, spawnedAt, exitedAt }));
  });
}
