import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** A PostgreSQL server found running on a cluster directory, from its `postmaster.pid`. */
export interface RunningPostmaster {
  readonly pid: number;
  readonly port: number;
  /** `starting`, `ready`, `stopping` or `standby`. */
  readonly status: string;
}

/**
 * The server PostgreSQL says runs on `clusterDir`, or null. `postmaster.pid` holds, one per line, the
 * pid, the data directory, the start time, the port, the socket directory, the listen address, the
 * shared memory key and the status. A file whose process is gone (a crash, a reboot) is stale: nothing
 * runs, and PostgreSQL itself replaces such a file when it starts.
 */
export async function findRunningPostmaster(clusterDir: string): Promise<RunningPostmaster | null> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  if (!isAlive(pid)) return null;
  return { pid, port, status: (lines[7] ?? '').trim() || 'starting' };
}

/**
 * The running server once it accepts connections, or null when none runs (or it stopped meanwhile).
 * A server still starting (another process is booting it) or stopping is waited for, up to `timeoutMs`.
 */
export async function waitForRunningPostmaster(
  clusterDir: string,
  timeoutMs: number,
): Promise<RunningPostmaster | null> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const found = await findRunningPostmaster(clusterDir);
    if (!found || found.status === 'ready' || performance.now() > deadline) return found;
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
