/**
 * Classifier tiers 1–2 do bounded, linear work per message (README, "Bounded work per message"): the
 * normaliser reads the first RULE_TEXT_MAX_CHARS characters, its steps are linear in them (the email
 * scan on its own is checked at 64 KB), and the expression built at startup from the data's symbols
 * (which the linter cannot see) is covered here by texts made of those symbols.
 */
import { describe, expect, it } from 'vitest';
import { adversarialTexts, fastestRunMs } from '../../../../test/support/adversarial-text.ts';
import { RULE_TEXT_MAX_CHARS } from '../domain/text.ts';
import { createFastClassifier } from './classifier.ts';
import { loadIntentData } from './intent-data.ts';
import { markEmails } from './normalise.ts';

const data = loadIntentData();
const { classifyFast } = createFastClassifier(data);

/** The data's symbols, repeated: the symbol expression matches at every position. */
function symbolTexts(length: number): Record<string, string> {
  const keys = Object.keys(data.normalisation.symbols).join('');
  return {
    'the data symbols repeated': keys.repeat(Math.ceil(length / keys.length)).slice(0, length),
    'the data symbols, spaced': `${keys} `.repeat(Math.ceil(length / (keys.length + 1))).slice(0, length),
  };
}

const texts = { ...adversarialTexts(), ...symbolTexts(65_536) };

describe('classifier tiers 1–2 on 64 KB adversarial texts', () => {
  it.each(Object.entries(texts))('%s: classifyFast under 50 ms', (_name, text) => {
    expect(fastestRunMs(classifyFast, text, { enough: 10 })).toBeLessThan(50);
  });

  it.each(Object.entries(texts))('%s: the email scan, uncut, under 200 ms', (_name, text) => {
    expect(fastestRunMs((t) => markEmails(t), text, { enough: 50 })).toBeLessThan(200);
  });
});

describe('markEmails', () => {
  it('replaces each address, leftmost first, and leaves anything else as it is', () => {
    expect(markEmails('mail budi.s@kampus.ac.id, a@b.c.', '<e>')).toBe('mail  <e> ,  <e> .');
    expect(markEmails('a@b a@@b.c @x.y', '<e>')).toBe('a@b a@@b.c @x.y');
    expect(markEmails('x@y.z@w.v', '<e>')).toBe(' <e> @w.v');
  });
});

describe('the cap', () => {
  it('classifies on the first RULE_TEXT_MAX_CHARS characters', () => {
    const late = `${'x '.repeat(RULE_TEXT_MAX_CHARS / 2)} berapa biaya kuliah?`;
    expect(classifyFast(late)).toEqual({ fallThrough: 'no_match' });
    expect(classifyFast(`berapa biaya kuliah? ${'x '.repeat(RULE_TEXT_MAX_CHARS)}`)).toMatchObject({
      intent: 'askFees',
    });
  });
});
