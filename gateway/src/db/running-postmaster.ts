import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A PostgreSQL server found running on a cluster directory, from its `postmaster.pid`. */
export interface RunningPostmaster {
  readonly pid: number;
  readonly port: number;
  /** `starting`, `ready`, `stopping` or `standby`; `initialising` while initdb creates the cluster. */
  readonly status: string;
}

/**
 * The server PostgreSQL says runs on `clusterDir`, or null. `postmaster.pid` holds, one per line, the
 * pid, the data directory, the start time, the port, the socket directory, the listen address, the
 * shared memory key and the status. A negative pid is a standalone backend: initdb creating the cluster.
 * A file whose process is gone (a crash, a reboot) is stale: nothing runs, and PostgreSQL itself
 * replaces such a file when it starts.
 */
export async function findRunningPostmaster(clusterDir: string): Promise<RunningPostmaster | null> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const written = Number(lines[0]);
  if (!Number.isInteger(written) || written === 0) return null;
  const pid = Math.abs(written);
  if (!isAlive(pid)) return null;
  const status = written < 0 ? 'initialising' : (lines[7] ?? '').trim() || 'starting';
  return { pid, port: Number(lines[3]), status };
}

/**
 * The running server once it accepts connections, or null when none runs. A server another process is
 * initialising, starting or stopping is waited for, up to `timeoutMs`; after an initdb, so is the server
 * its process starts next (two processes starting one cluster's server at once would fail one of them).
 * What was found last is returned on timeout, ready or not.
 */
export async function waitForRunningPostmaster(
  clusterDir: string,
  timeoutMs: number,
): Promise<RunningPostmaster | null> {
  const deadline = performance.now() + timeoutMs;
  let initialised = false;
  for (;;) {
    const found = await findRunningPostmaster(clusterDir);
    if (found?.status === 'ready' || performance.now() > deadline) return found;
    if (found?.status === 'initialising') initialised = true;
    if (!found && !initialised) return null;
    await delay(100);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user (the `postgres` user, when this process is root's).
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
