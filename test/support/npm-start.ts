import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { eventually } from './eventually.ts';
import { endsWithTest, freePort, isRunning, spawnNpm, type GatewayProcess } from './process.ts';

/** A data directory for an embedded PostgreSQL, and the ports that keep a spawned gateway apart. */
export interface Isolation {
  dataDir: string;
  port: number;
  env: Record<string, string>;
}

/**
 * Only what keeps a spawned `npm start` from colliding with other tests: ports and DATA_DIR. Nothing
 * else is set, as on a newcomer's machine. The directory is not mkdtemp's: the unprivileged user
 * PostgreSQL runs as when tests run as root must be able to enter it.
 */
export async function isolation(name: string): Promise<Isolation> {
  const dataDir = path.join(tmpdir(), `gatehouse-${name}-${process.pid}-${Date.now()}`);
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  const port = await freePort();
  return {
    dataDir,
    port,
    env: {
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    },
  };
}

export interface StartedGateway {
  npm: GatewayProcess;
  url: string;
  /** The gateway's own process (npm's child). */
  gatewayPid: number;
  /** The embedded PostgreSQL's postmaster. */
  postgresPid: number;
}

/** `npm start` from the repository root, once the gateway answers. */
export async function npmStart(
  where: Isolation,
  extraEnv: Record<string, string> = {},
): Promise<StartedGateway> {
  const npm = endsWithTest(spawnNpm({ args: ['start', '--silent'], env: { ...where.env, ...extraEnv } }));
  await npm.waitForOutput(/"msg":"gateway listening"/);
  const line =
    npm
      .stdout()
      .split('\n')
      .find((text) => text.includes('"msg":"gateway listening"')) ?? '';
  const { url, pid } = JSON.parse(line) as { url: string; pid: number };
  const postgresPid = postmasterPid(where.dataDir);
  if (postgresPid === undefined) throw new Error(`no postmaster.pid under ${where.dataDir}`);
  return { npm, url, gatewayPid: pid, postgresPid };
}

/** The pid `postmaster.pid` names, or undefined when there is no such file. */
export function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

/**
 * Waits until nothing of a started gateway is left: its port does not answer, its process is gone, and
 * no PostgreSQL runs on its data directory. Bounds are generous: this must hold on a loaded machine.
 */
export async function expectAllStopped(
  started: StartedGateway,
  where: Isolation,
  timeoutMs = 45_000,
): Promise<void> {
  await eventually(
    'the gateway, its port and its embedded PostgreSQL all gone',
    timeoutMs,
    async () => {
      const answering = await fetch(`${started.url}/health`).then(
        () => true,
        () => false,
      );
      const left = [
        answering && `${started.url}/health still answers`,
        isRunning(started.gatewayPid) && `gateway pid ${started.gatewayPid} still runs`,
        isRunning(started.postgresPid) && `postgres pid ${started.postgresPid} still runs`,
        postmasterPid(where.dataDir) !== undefined && 'postmaster.pid still exists',
      ].filter(Boolean);
      if (left.length > 0) throw new Error(left.join('; '));
      return true;
    },
    200,
  );
}

/**
 * Last resort after a test (an `afterEach`, so it also runs after a timeout): nothing the test started
 * may outlive it, whatever its outcome.
 */
export async function killLeftovers(started: StartedGateway | undefined, where: Isolation): Promise<void> {
  const signal = (pid: number | undefined, name: NodeJS.Signals) => {
    if (pid === undefined || pid <= 0 || !isRunning(pid)) return;
    try {
      process.kill(pid, name);
    } catch {
      // Gone meanwhile.
    }
  };
  if (started) {
    signal(started.npm.child.pid, 'SIGKILL');
    signal(started.gatewayPid, 'SIGKILL');
  }
  // A fast shutdown, so the server removes its lock file and its backends end with it.
  const postgres = postmasterPid(where.dataDir);
  signal(postgres, 'SIGINT');
  if (postgres !== undefined && postgres > 0) {
    await eventually('the embedded PostgreSQL stopped', 30_000, () =>
      Promise.resolve(isRunning(postgres) ? undefined : true),
    );
  }
}

export async function removeDataDir(where: Isolation): Promise<void> {
  await rm(where.dataDir, { recursive: true, force: true, maxRetries: 5 });
}

export interface NpmStartSuite {
  /** The block's ports and DATA_DIR (set once the block's `beforeAll` ran). */
  readonly where: Isolation;
  /** `npm start` in the block's isolation; whatever it starts is killed after the test, whatever its outcome. */
  start(extraEnv?: Record<string, string>): Promise<StartedGateway>;
}

/**
 * Registers what a `describe` block of `npm start` tests needs: ports and a DATA_DIR of its own, nothing left
 * running after each test (`killLeftovers`, also after a timeout), and the data removed at the end.
 */
export function npmStartSuite(name: string): NpmStartSuite {
  let isolated: Isolation | undefined;
  let started: StartedGateway | undefined;
  beforeAll(async () => {
    isolated = await isolation(name);
  });
  afterEach(async () => {
    if (isolated) await killLeftovers(started, isolated);
    started = undefined;
  }, 60_000);
  afterAll(async () => {
    if (isolated) await removeDataDir(isolated);
  });
  const suite: NpmStartSuite = {
    get where() {
      if (!isolated) throw new Error(`npmStartSuite('${name}') is used outside its describe block's tests`);
      return isolated;
    },
    async start(extraEnv = {}) {
      started = await npmStart(suite.where, extraEnv);
      return started;
    },
  };
  return suite;
}
