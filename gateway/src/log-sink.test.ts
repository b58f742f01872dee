import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LineSink } from './log-sink.ts';

let dir: string;
let file: string;
let fd: number;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-sink-'));
  file = path.join(dir, 'log');
  fd = openSync(file, 'w');
});
afterEach(async () => {
  closeSync(fd);
  await rm(dir, { recursive: true, force: true });
});

const flushed = (sink: LineSink) => new Promise<void>((resolve) => sink.flush(() => resolve()));

describe('LineSink', () => {
  it('writes every line, whole and in order, across many batches', async () => {
    const sink = new LineSink({ fd, batchBytes: 1024 });
    const lines = Array.from({ length: 20_000 }, (_, i) => `{"n":${i},"pad":"${'x'.repeat(i % 97)}"}\n`);
    for (const line of lines) sink.write(line);
    await flushed(sink);
    expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
  });

  it('writes a lone line within the delay, without a flush', async () => {
    const sink = new LineSink({ fd, maxDelayMs: 20 });
    sink.write('{"quiet":true}\n');
    expect(readFileSync(file, 'utf8')).toBe('');
    await expect.poll(() => readFileSync(file, 'utf8'), { interval: 10 }).toBe('{"quiet":true}\n');
  });

  it('flush calls back at once when nothing is pending', async () => {
    const sink = new LineSink({ fd });
    await flushed(sink);
    expect(readFileSync(file, 'utf8')).toBe('');
  });

  it('drops lines past the memory bound instead of growing without limit, and counts them', async () => {
    const sink = new LineSink({ fd, maxPendingChars: 100, batchBytes: 1_000_000, maxDelayMs: 1_000 });
    const accepted = Array.from({ length: 10 }, () => sink.write(`${'y'.repeat(29)}\n`));
    expect(accepted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(sink.droppedLines).toBe(7);
    await flushed(sink);
    expect(readFileSync(file, 'utf8')).toBe(`${'y'.repeat(29)}\n`.repeat(3));
  });

  it('a process that exits at once (process.exit) still writes its pending lines', () => {
    const sinkModule = new URL('./log-sink.ts', import.meta.url).href;
    const script = `import { LineSink } from ${JSON.stringify(sinkModule)};
      const sink = new LineSink({ maxDelayMs: 10_000 });
      sink.write('last words\\n');
      process.exit(1);`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.status).toBe(1);
    expect(child.stdout).toBe('last words\n');
  });

  it('flushSync writes what is pending', () => {
    const sink = new LineSink({ fd, maxDelayMs: 10_000 });
    sink.write('a\n');
    sink.write('b\n');
    sink.flushSync();
    expect(readFileSync(file, 'utf8')).toBe('a\nb\n');
  });
});
