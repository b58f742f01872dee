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
import { endsWithTest, isRunning, REPO_ROOT } from './process.ts';

const VITEST = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
const CONFIG = fileURLToPath(new URL('../fixtures/ends-with-test/vitest.config.ts', import.meta.url));

/**
 * Runs one fixture file of test/fixtures/ends-with-test/ in a vitest run of its own, and answers its output,
 * its exit code and the pid the fixture wrote to PID_FILE (the process that must be gone).
 */
async function runFixture(file: string): Promise<{ output: string; code: number | null; pid: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'gatehouse-ends-with-test-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const pidFile = join(dir, 'child.pid');
  const run = spawn(process.execPath, [VITEST, 'run', '--config', CONFIG, file], {
    cwd: REPO_ROOT,
    env: { ...process.env, PID_FILE: pidFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
  endsWithTest({ child: run, exited });
  let output = '';
  run.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  run.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await exited;
  return { output, code, pid: Number(await readFile(pidFile, 'utf8')) };
}

it('kills a child registered with endsWithTest when its test times out', async () => {
  const { output, code, pid } = await runFixture('timeout.fixture.ts');

  expect(output).toMatch(/timed out/i);
  expect(code).toBe(1);
  expect(pid).toBeGreaterThan(0);
  const alive = isRunning(pid);
  if (alive) process.kill(pid, 'SIGKILL'); // never leave it behind, even when this test fails
  expect(alive).toBe(false);
});

it('kills the whole process group of a detached child (what `npm` starts, too) when its test times out', async () => {
  const { output, code, pid } = await runFixture('group.fixture.ts');

  expect(output).toMatch(/timed out/i);
  expect(code).toBe(1);
  expect(pid).toBeGreaterThan(0);
  const alive = isRunning(pid);
  if (alive) process.kill(pid, 'SIGKILL'); // never leave it behind, even when this test fails
  expect(alive).toBe(false);
});
