import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findRunningPostmaster, waitForRunningPostmaster } from './running-postmaster.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-pidfile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * A postmaster.pid as PostgreSQL writes it; this test process stands in for a live server. Replaced in
 * one step, as PostgreSQL updates it in place: a reader never sees it empty.
 */
async function pidFile(pid: number, status: string): Promise<void> {
  const next = path.join(dir, 'postmaster.pid.next');
  await writeFile(
    next,
    `${pid}\n${dir}\n1700000000\n54321\n\n127.0.0.1\n  5432001         0\n${status.padEnd(8)}\n`,
  );
  await rename(next, path.join(dir, 'postmaster.pid'));
}

/** A pid no process has: above the kernel's pid_max. */
const GONE = 2 ** 22 + 1;

describe('findRunningPostmaster', () => {
  it('reads the pid, port and status of a live server', async () => {
    await pidFile(process.pid, 'ready');
    expect(await findRunningPostmaster(dir)).toEqual({ pid: process.pid, port: 54321, status: 'ready' });
  });

  it('sees no server without a pid file, or when its process is gone (a stale file)', async () => {
    expect(await findRunningPostmaster(dir)).toBeNull();
    await pidFile(GONE, 'ready');
    expect(await findRunningPostmaster(dir)).toBeNull();
  });

  it('takes a negative pid for initdb at work on the cluster', async () => {
    await pidFile(-process.pid, '');
    expect(await findRunningPostmaster(dir)).toMatchObject({ pid: process.pid, status: 'initialising' });
  });
});

describe('waitForRunningPostmaster', () => {
  it('answers at once when nothing runs or the server is ready', async () => {
    expect(await waitForRunningPostmaster(dir, 60_000)).toBeNull();
    await pidFile(process.pid, 'ready');
    expect(await waitForRunningPostmaster(dir, 60_000)).toMatchObject({ status: 'ready' });
  });

  it('waits for a server that is starting until it is ready', async () => {
    await pidFile(process.pid, 'starting');
    const waiting = waitForRunningPostmaster(dir, 60_000);
    await pidFile(process.pid, 'ready');
    expect(await waiting).toMatchObject({ status: 'ready' });
  });

  it('returns what it found last when the bound passes', async () => {
    await pidFile(process.pid, 'starting');
    expect(await waitForRunningPostmaster(dir, 0)).toMatchObject({ status: 'starting' });
  });
});
