/**
 * Every extraction step is linear in its input (README, "Bounded work per message"): each one, given a
 * 64 KB adversarial text without the cap that the engine applies, finishes in well under 200 ms. The
 * quadratic versions these replaced took seconds to tens of seconds on the same texts.
 */
import { describe, expect, it } from 'vitest';
import { adversarialTexts, fastestRunMs } from '../../../../../test/support/adversarial-text.ts';
import { RULE_TEXT_MAX_CHARS } from '../../domain/text.ts';
import { detectLanguage } from '../language/detect-language.ts';
import { normaliseEmail, scanEmails } from './email.ts';
import { asName, extractName } from './name.ts';
import { scanPhones } from './phone.ts';
import { extractWithRules } from './rules.ts';

const BOUND_MS = 200;

const STEPS: Record<string, (text: string) => unknown> = {
  scanEmails,
  scanPhones,
  'extractName (bot asked for the name)': (text) => extractName(text, { expectName: true }),
  'extractName (not asked)': (text) => extractName(text, { expectName: false }),
  normaliseEmail,
  asName,
  extractWithRules: (text) => extractWithRules(text, { expectName: true }),
  detectLanguage: (text) => detectLanguage(text, undefined),
};

describe('extraction steps on 64 KB adversarial texts', () => {
  it.each(Object.entries(adversarialTexts()))('%s: every step under 200 ms', (_name, text) => {
    const slow: string[] = [];
    for (const [step, work] of Object.entries(STEPS)) {
      const ms = fastestRunMs(work, text, { enough: BOUND_MS / 4 });
      if (ms >= BOUND_MS) slow.push(`${step}: ${ms.toFixed(0)} ms`);
    }
    expect(slow).toEqual([]);
  });
});

describe('the rule tiers read the first RULE_TEXT_MAX_CHARS characters', () => {
  const padding = 'x '.repeat(RULE_TEXT_MAX_CHARS);

  it('finds data in a long message before the cap and nothing after it', () => {
    const early = `${'halo '.repeat(500)}email saya budi@example.com`;
    expect(early.length).toBeLessThan(RULE_TEXT_MAX_CHARS);
    expect(extractWithRules(early, { expectName: false }).fields).toEqual({ email: 'budi@example.com' });
    expect(extractWithRules(`${padding} budi@example.com 081234567890`, { expectName: false })).toEqual({
      fields: {},
      ambiguous: [],
      invalidEmail: false,
    });
  });

  it('reads the language of the first characters only', () => {
    expect(detectLanguage(`${padding} the`, 'id')).toBe('id');
    expect(detectLanguage(`the ${padding}`, 'id')).toBe('en');
  });
});
