/**
 * No child process outlives its test (docs/testing.md, "Rules the suites follow"; the gateway and operator
 * suites spawn `gatehouse serve`, `npm start`, `gatehouse operator` and `gatehouse rollout`): a child
 * registered with endsWithTest is killed when its test ends, even when the test times out, which a `finally`
 * in the test body never reaches.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it, onTestFinished } from 'vitest';
import { isRunning, REPO_ROOT } from './process.ts';

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const CONFIG = fileURLToPath(new URL('../fixtures/ends-with-test/vitest.config.ts', import.meta.url));

it('kills a child registered with endsWithTest when its test times out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-ends-with-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const pidFile = join(dir, 'child.pid');
  const run = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG], {
    cwd: REPO_ROOT,
    env: { ...process.env, PID_FILE: pidFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));

  expect(output).toMatch(/timed out/i);
  expect(code).toBe(1);
  const pid = Number(await readFile(pidFile, 'utf8'));
  expect(pid).toBeGreaterThan(0);
  const alive = isRunning(pid);
  if (alive) process.kill(pid, 'SIGKILL'); // never leave it behind, even when this test fails
  expect(alive).toBe(false);
});
