/**
 * Every regular expression of the gateway, the plugins and the operator runs in linear time (the webhook
 * and the API read text from anyone). Literals are checked by the linter (eslint.config.js, "ReDoS"):
 * this suite proves that the project's rules reject the classic shapes in a file under plugins/, and
 * that every expression built at run time, which the linter cannot see, is a known one with an
 * adversarial-input test of its own.
 */
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The regexp rules exactly as the project configures them, without the slow type-aware rest. */
async function regexpLinter(): Promise<ESLint> {
  const { default: config } = (await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as {
    default: Linter.Config[];
  };
  const regexpBlocks = config.filter((block) => block.plugins?.regexp !== undefined);
  expect(regexpBlocks.length).toBeGreaterThan(0);
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...regexpBlocks],
  });
}

async function ruleIdsFor(linter: ESLint, source: string): Promise<string[]> {
  const [result] = await linter.lintText(source, {
    filePath: path.join(root, 'plugins/example/src/probe.ts'),
  });
  return [...new Set((result?.messages ?? []).map((m) => m.ruleId ?? m.message))].sort();
}

describe('the linter rejects super-linear expressions in plugins/', () => {
  it.each([
    ['nested quantifiers', 'export const R = /(a+)+$/;', 'regexp/no-super-linear-backtracking'],
    ['overlapping quantifiers', 'export const R = /^\\s*[:=]?\\s*$/;', 'regexp/no-super-linear-backtracking'],
    [
      'a token with an @ (tried from every start)',
      'export const R = /\\S*@\\S*/g;',
      'regexp/no-super-linear-move',
    ],
    [
      'an email candidate (tried from every start)',
      'export const find = (t: string) => t.match(/[\\p{L}.]+@[\\p{L}]+/gu);',
      'regexp/no-super-linear-move',
    ],
    [
      'a trailing run',
      "export const trim = (t: string) => t.replace(/[.,]+$/, '');",
      'regexp/no-super-linear-move',
    ],
    [
      'a constant string given to new RegExp',
      "const SOURCE = '(a+)+$';\nexport const R = new RegExp(SOURCE);",
      'regexp/no-super-linear-backtracking',
    ],
  ])('%s', { timeout: 60_000 }, async (_name, source, rule) => {
    expect(await ruleIdsFor(await regexpLinter(), source)).toContain(rule);
  });

  it('accepts linear ones', { timeout: 60_000 }, async () => {
    const linter = await regexpLinter();
    for (const source of [
      'export const R = /^[a-z0-9-]{1,63}$/;',
      'export const tokens = (t: string) => t.replace(/\\S+/g, (w) => w.toLowerCase());',
      'export const R = /(?<![\\p{L}\\p{N}])nama\\s+saya\\s*[:=-]?/giu;',
    ]) {
      expect(await ruleIdsFor(linter, source), source).toEqual([]);
    }
  });
});

/**
 * Expressions built at run time, by file, with the test that runs them on adversarial inputs. Adding a
 * `new RegExp(...)` elsewhere fails this suite: write a literal instead, or test it and list it here.
 */
const BUILT_AT_RUN_TIME: Record<string, string> = {
  // The data file's emoji → word symbols, alternated.
  'plugins/messaging/src/classifier/normalise.ts':
    'plugins/messaging/src/classifier/classifier.security.test.ts',
  // The CRD schema's patterns.
  'operator/src/api/structural.ts': 'operator/src/api/schema-patterns.test.ts',
  'operator/src/api/rollout-settings.ts': 'operator/src/api/schema-patterns.test.ts',
};

describe('expressions built at run time', () => {
  it('are the known ones, each covered by an adversarial-input test', () => {
    const sources = ['gateway', 'plugins', 'operator'].flatMap((dir) =>
      globSync(`${dir}/**/*.ts`, { cwd: root }).filter((file) => !file.endsWith('.test.ts')),
    );
    const building = sources
      .filter((file) => /\bRegExp\s*\(/.test(readFileSync(path.join(root, file), 'utf8')))
      .sort();
    expect(building).toEqual(Object.keys(BUILT_AT_RUN_TIME).sort());
    for (const test of new Set(Object.values(BUILT_AT_RUN_TIME))) {
      expect(globSync(test, { cwd: root }), test).toEqual([test]);
    }
  });
});
