/** A real Prometheus (the Debian `prometheus` package) scraping loopback endpoints the test controls. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Registry } from 'prom-client';
import { eventually } from './eventually.ts';
import { freePort } from './process.ts';

export interface Exporter {
  /** `host:port` for a scrape config. */
  target: string;
  close(): Promise<void>;
}

/** Serves each registry at its path (`/warn` → registry), as a gateway's metrics listener would. */
export async function serveRegistries(routes: ReadonlyMap<string, Registry>): Promise<Exporter> {
  const server: Server = createServer((req, res) => {
    const registry = routes.get(req.url ?? '');
    if (!registry) return void res.writeHead(404).end();
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    target: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface ScrapeJob {
  name: string;
  target: string;
  metricsPath: string;
  /** Static labels added to every series of the job (e.g. the namespace the operator's queries filter on). */
  labels: Record<string, string>;
}

export interface RunningPrometheus {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `binary` on a free loopback port with its own storage directory, scraping `jobs` every second, and
 * waits until it is ready. `stop` ends the process and removes the directory.
 */
export async function startPrometheus(
  binary: string,
  jobs: readonly ScrapeJob[],
): Promise<RunningPrometheus> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-prometheus-'));
  const config = {
    global: { scrape_interval: '1s' },
    scrape_configs: jobs.map((job) => ({
      job_name: job.name,
      scrape_interval: '1s',
      scrape_timeout: '1s',
      metrics_path: job.metricsPath,
      static_configs: [{ targets: [job.target], labels: job.labels }],
    })),
  };
  // JSON is YAML: no YAML writer needed.
  await writeFile(path.join(dir, 'prometheus.yml'), JSON.stringify(config));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await eventually('Prometheus to be ready', 20_000, async () =>
      (await fetch(`${url}/-/ready`)).ok ? true : undefined,
    );
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}; prometheus stderr: ${stderr}`, { cause: error });
  }
  return { url, stop };
}
