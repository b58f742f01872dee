/**
 * The repository's docs explain themselves: no tracked document may send its reader to something the repository
 * does not hold — an issue number, the product's specification documents or decision file, the team's guides, a
 * path above the repository. A requirement a reader needs is stated in the README, ADR or `docs/` page concerned.
 *
 * Scope: every tracked file with an extension in `SCANNED_EXTENSIONS`: the docs, the comments of the sources and
 * scripts, the Kubernetes manifests and the migrations.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/process.ts';

/** File extensions whose tracked files are scanned; extending the scan is one entry here. */
const SCANNED_EXTENSIONS = ['md', 'ts', 'js', 'yaml', 'sql', 'json'] as const;

/**
 * What a reader cannot follow. Every pattern is linear in the line it reads: literals, bounded classes and
 * single-character lookarounds, no nested quantifiers.
 */
const FORBIDDEN: readonly { name: string; pattern: RegExp }[] = [
  { name: 'issue number', pattern: /\bissues? \d+/i },
  { name: 'decision file', pattern: /DECISIONS\.md/i },
  { name: 'specification document', pattern: /\bdocuments? 00\d\b/i },
  { name: 'specification document number', pattern: /(?<![\w,.+])00[0-2](?![\w,])/ },
  { name: 'path outside the repository', pattern: /\.\.\/shared\//i },
  { name: 'testing guide', pattern: /testing guide/i },
  { name: 'style guide', pattern: /style guide/i },
];

/** Files that hold such references on purpose, each with its reason. */
const EXEMPT: ReadonlyMap<string, string> = new Map([
  ['test/self-contained-docs.test.ts', 'names the forbidden references in its patterns and fixtures'],
  [
    'test/fixtures/migrations-with-whole-file-checksums.json',
    'the migrations as first applied, byte for byte: the checksums of their old comments are what it tests',
  ],
  ['package-lock.json', "npm's record of the dependency tree, written by npm"],
]);

/** One forbidden reference: where it is and what it is. */
interface Offence {
  line: number;
  kind: string;
  text: string;
}

/** Every forbidden reference in `text`, one entry per line and kind. */
function findOffences(text: string): Offence[] {
  return text.split('\n').flatMap((line, index) =>
    FORBIDDEN.filter(({ pattern }) => pattern.test(line)).map(({ name }) => ({
      line: index + 1,
      kind: name,
      text: line.trim(),
    })),
  );
}

/** The tracked files with a scanned extension, relative to the repository root. */
function trackedFiles(): string[] {
  const pathspecs = SCANNED_EXTENSIONS.map((extension) => `*.${extension}`);
  const output = execFileSync('git', ['ls-files', '-z', '--', ...pathspecs], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  });
  return output.split('\0').filter((file) => file !== '' && !EXEMPT.has(file));
}

function offencesOf(file: string): string[] {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  return findOffences(text).map(({ line, kind, text: excerpt }) => `${file}:${line}: ${kind}: ${excerpt}`);
}

describe('self-contained docs', () => {
  const files = trackedFiles();

  it('finds the tracked files it scans', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/errors.md');
  });

  it('no tracked document refers to an issue or to a document outside the repository', () => {
    const offences = files.flatMap(offencesOf);
    expect(offences).toEqual([]);
  });
});

describe('findOffences', () => {
  it('flags each kind of reference, with its line', () => {
    const text = [
      'Clean line.',
      'Built in issue 7 (issues 3 and 4).',
      'As DECISIONS.md says.',
      'Document 002, "Limits"; documents 000 and 001.',
      '`authMode: local` (000 "Errors"), the phase of 002\'s table.',
      'See ../shared/guides/style.md.',
      'The testing guide and the Style Guide.',
    ].join('\n');
    expect(findOffences(text).map(({ line, kind }) => `${line} ${kind}`)).toEqual([
      '2 issue number',
      '3 decision file',
      '4 specification document',
      '4 specification document number',
      '5 specification document number',
      '6 path outside the repository',
      '7 testing guide',
      '7 style guide',
    ]);
  });

  it('leaves numbers, words and paths that only look alike', () => {
    const text = [
      '10,000 keys, 100,000 passwords, 0.002 s, v1.0.0, 2002, 0001_init.sql, ADR 0002, U+001F, 0x002a.',
      'A tissue 3 cm wide; the issuer 2; any issue; "issues" without a number.',
      'A guide to testing; ./shared/thing; docs/decisions.txt.',
    ].join('\n');
    expect(findOffences(text)).toEqual([]);
  });

  it('stays fast on a long hostile line', () => {
    const line = `${'issue '.repeat(50_000)}${'0'.repeat(50_000)}${'../shared'.repeat(20_000)}`;
    const start = performance.now();
    findOffences(line);
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});
