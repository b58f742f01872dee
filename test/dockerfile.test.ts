/**
 * The production image holds every file its command loads. There is no build step, so the image is the
 * TypeScript sources its final stage COPYs; a source folder the entry point reaches but the Dockerfile leaves
 * out makes the container exit at start. Read from the Dockerfile itself: the final stage's COPY sources and
 * its CMD, then every relative import reachable from that entry point, and every file those modules read next to
 * themselves (`new URL('../x', import.meta.url)`: migrations, data files). No Docker engine is needed, and none
 * runs on these machines; the image's other invariants are checked the same way, on the text.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readdirSync, statSync } from 'node:fs';
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

/** The files below a repository path (the path itself when it is a file). */
function filesUnder(target: string): string[] {
  const full = path.join(REPO_ROOT, target);
  if (!statSync(full).isDirectory()) return [target];
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .map((relative) => path.posix.join(target, relative.split(path.sep).join('/')))
    .filter((file) => statSync(path.join(REPO_ROOT, file)).isFile());
}

/** Relative specifiers of a module: imports, re-exports, dynamic imports and files read beside it. */
const SPECIFIERS = [
  /(?:from|import) '(\.\.?\/[^']*)'/g,
  /import\('(\.\.?\/[^']*)'\)/g,
  /new URL\(['`](\.\.?\/[^'`$]*)/g,
];

/**
 * Every repository file reachable from `entry` through relative imports (static, side-effect, re-exports and
 * dynamic), with the files and folders the modules read relative to themselves.
 */
function importClosure(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    for (const match of SPECIFIERS.flatMap((pattern) => [...text.matchAll(pattern)])) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      // A specifier quoted in a comment may name no file; the compiler checks the real ones.
      if (existsSync(path.join(REPO_ROOT, target))) pending.push(...filesUnder(target.replace(/\/$/, '')));
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

  it('includes no file the command loads that .dockerignore leaves out of the build context', () => {
    const ignored = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const loaded = importClosure(entryPoint(finalStage(DOCKERFILE)));
    const excluded = loaded.filter((file) =>
      ignored.some((pattern) => path.matchesGlob(file, pattern) || path.matchesGlob(file, `${pattern}/**`)),
    );
    expect(excluded).toEqual([]);
  });

  it('reads the migrations and data files the modules open beside themselves', () => {
    const loaded = importClosure(entryPoint(finalStage(DOCKERFILE)));
    expect(loaded.some((file) => file.startsWith('migrations/') && file.endsWith('.sql'))).toBe(true);
  });

  it('is built from a base image pinned to a Node release, the same in every stage', () => {
    const bases = [...DOCKERFILE.matchAll(/^FROM (\S+)/gm)].map((match) => match[1] as string);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases)
      expect(base).toMatch(/^node:\d+\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$|@sha256:/);
    expect(new Set(bases).size).toBe(1);
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    const major = /(\d+)/.exec(pkg.engines.node)?.[1];
    expect(bases[0]).toMatch(new RegExp(`^node:${major}\\.`));
  });

  it('installs the production dependencies only, with the lock file', () => {
    expect(DOCKERFILE).toMatch(/^RUN npm ci --omit=dev\b/m);
    expect(DOCKERFILE).toMatch(/^COPY package\.json package-lock\.json /m);
  });

  it('runs as a user that is not root, with a health check on /health', () => {
    const stage = finalStage(DOCKERFILE);
    const user = stage
      .filter((line) => line.startsWith('USER '))
      .at(-1)
      ?.slice('USER '.length)
      .trim();
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    const healthcheck = stage.findIndex((line) => line.startsWith('HEALTHCHECK '));
    expect(healthcheck).toBeGreaterThan(-1);
    expect(stage.slice(healthcheck, healthcheck + 2).join('\n')).toContain('/health');
  });
});
