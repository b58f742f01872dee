/**
 * The production image holds every file its command loads. There is no build step, so the image is the
 * TypeScript sources its final stage COPYs; a source folder the entry point reaches but the Dockerfile leaves
 * out makes the container exit at start. Read from the Dockerfile itself: the final stage's COPY sources and
 * its CMD, then every relative import reachable from that entry point (no Docker engine needed).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/process.ts';

const DOCKERFILE = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');

/** The final stage: everything after the last FROM. */
function finalStage(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.findLastIndex((line) => line.startsWith('FROM '));
  return lines.slice(from + 1);
}

/** The repository paths the final stage copies from the build context (not from another stage). */
function copiedSources(stage: readonly string[]): string[] {
  return stage
    .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
    .flatMap((line) => line.trim().split(/\s+/).slice(1, -1))
    .map((source) => path.posix.normalize(source).replace(/\/$/, ''));
}

/** The file the final stage's CMD runs with node. */
function entryPoint(stage: readonly string[]): string {
  const cmd = stage.find((line) => line.startsWith('CMD ['));
  const args = cmd === undefined ? [] : (JSON.parse(cmd.slice('CMD '.length)) as string[]);
  const entry = args[0] === 'node' ? args[1] : undefined;
  if (entry === undefined) throw new Error(`no "node <file>" CMD in the Dockerfile's final stage: ${cmd}`);
  return entry;
}

/** Every repository file reachable from `entry` through relative imports (static, side-effect and re-exports). */
function importClosure(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const match of text.matchAll(/(?:from|import) '(\.\.?\/[^']*)'/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      // A specifier quoted in a comment may name no file; the compiler checks the real ones.
      if (existsSync(path.join(REPO_ROOT, target))) pending.push(target);
    }
  }
  return [...seen].sort();
}

describe('the production image (Dockerfile)', () => {
  it('copies every source file its command loads', () => {
    const stage = finalStage(DOCKERFILE);
    const copied = copiedSources(stage);
    const loaded = importClosure(entryPoint(stage));
    expect(loaded.length).toBeGreaterThan(50);
    const missing = loaded.filter(
      (file) => !copied.some((source) => file === source || file.startsWith(`${source}/`)),
    );
    expect(missing).toEqual([]);
  });
});
