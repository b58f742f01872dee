/**
 * The CRD schema's `pattern`s are compiled at run time (`checkStructure`, `parseDuration`), so the linter
 * cannot check that they are linear (eslint.config.js, "ReDoS"). `checkStructure` runs a pattern on a value
 * of any length (a too-long value is reported, and matched too), so each pattern must answer quickly on
 * 64 KB strings built to make it backtrack: runs of one character class after the prefixes the patterns
 * expect, each ending in a character that rejects.
 */
import { describe, expect, it } from 'vitest';
import { adversarialTexts, fastestRunMs } from '../../../test/support/adversarial-text.ts';
import type { JsonSchema } from './json-schema.ts';
import { DURATION_PATTERN, specSchema } from './spec-schema.ts';
import { statusSchema } from './status-schema.ts';

interface Patterned {
  path: string;
  pattern: string;
}

function patternsOf(schema: JsonSchema, path: string, found: Patterned[] = []): Patterned[] {
  if (schema.pattern !== undefined) found.push({ path, pattern: schema.pattern });
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    patternsOf(child, `${path}.${key}`, found);
  if (schema.items) patternsOf(schema.items, `${path}[]`, found);
  if (typeof schema.additionalProperties === 'object')
    patternsOf(schema.additionalProperties, `${path}.*`, found);
  return found;
}

const patterned = [...patternsOf(specSchema, 'spec'), ...patternsOf(statusSchema, 'status')];

/** Strings of `length` characters that make a backtracking pattern work hard: runs, then a rejecting end. */
function attacks(length: number): string[] {
  const prefixes = ['', 'https://', 'ldap://', 'a', 'a@', '1h'];
  const runs = ['a', 'A', '0', '-', '.', '_', ':', ',', '@', ' ', '/', 'a-', 'a.', '0m', 'a@b'];
  const texts: string[] = [];
  for (const prefix of prefixes) {
    for (const run of runs) {
      const body = run.repeat(Math.ceil(length / run.length)).slice(0, length - prefix.length - 1);
      texts.push(`${prefix}${body}!`);
    }
  }
  return [...texts, ...Object.values(adversarialTexts(length))];
}

describe('CRD schema patterns', () => {
  it('are there to check (the walk finds the duration pattern)', () => {
    expect(patterned.map((p) => p.pattern)).toContain(DURATION_PATTERN);
  });

  it.each(patterned.map((p) => [p.path, p] as const))(
    '%s: under 50 ms on 64 KB adversarial strings',
    (_path, { pattern }) => {
      const regex = new RegExp(pattern, 'u');
      const slow: string[] = [];
      for (const text of attacks(65_536)) {
        const ms = fastestRunMs((t) => regex.test(t), text, { enough: 10 });
        if (ms >= 50) slow.push(`${JSON.stringify(text.slice(0, 20))}…: ${ms.toFixed(0)} ms`);
      }
      expect(slow).toEqual([]);
    },
  );
});
