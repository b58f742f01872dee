import { describe, expect, it } from 'vitest';
import { RULE_TEXT_MAX_CHARS, ruleText, trimEndChars } from './text.ts';

describe('ruleText', () => {
  it('keeps a short text whole and cuts a long one at RULE_TEXT_MAX_CHARS', () => {
    expect(ruleText('halo')).toBe('halo');
    expect(ruleText('a'.repeat(RULE_TEXT_MAX_CHARS + 10))).toBe('a'.repeat(RULE_TEXT_MAX_CHARS));
  });

  it('never cuts a surrogate pair in half', () => {
    const cut = ruleText(`${'a'.repeat(RULE_TEXT_MAX_CHARS - 1)}😀 more`);
    expect(cut).toBe('a'.repeat(RULE_TEXT_MAX_CHARS - 1));
    expect(cut.isWellFormed()).toBe(true);
  });
});

describe('trimEndChars', () => {
  it('drops only the trailing characters of the set', () => {
    expect(trimEndChars('budi@example.com.),', '.,)')).toBe('budi@example.com');
    expect(trimEndChars('https://api.example.com///', '/')).toBe('https://api.example.com');
    expect(trimEndChars('...', '.')).toBe('');
    expect(trimEndChars('a.b', '.')).toBe('a.b');
  });

  it('is linear on a long run of the set followed by another character', () => {
    const text = `${'.'.repeat(1_000_000)}x`;
    const started = performance.now();
    expect(trimEndChars(text, '.')).toBe(text);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
