import { describe, expect, it } from 'vitest';
import { compileIntentData } from '../classifier/compile.ts';
import { loadIntentData } from '../classifier/index.ts';
import { gapKey, isoWeek } from './kb-gap-key.ts';

describe('gap grouping key', () => {
  // The classifier's normaliser over its shipped data, as the plugin shares it with the gap pass.
  const normalise = compileIntentData(loadIntentData()).normalise;

  it('gives variants of one question the same key', () => {
    const key = gapKey(normalise, 'ada asrama?');
    expect(key).not.toBeNull();
    expect(gapKey(normalise, 'Ada ASRAMA gak kak??')).toBe(gapKey(normalise, 'ada asrama ga kak'));
    expect(gapKey(normalise, 'ADA ASRAMA?')).toBe(key);
  });

  it('gives no key to a text without words', () => {
    expect(gapKey(normalise, '   ')).toBeNull();
    expect(gapKey(normalise, '?!.')).toBeNull();
  });

  it('names the ISO week, Monday first, the year of its Thursday', () => {
    expect(isoWeek(new Date('2026-01-01T12:00:00Z'))).toBe('2026-W01');
    expect(isoWeek(new Date('2027-01-01T00:00:00Z'))).toBe('2026-W53');
    expect(isoWeek(new Date('2024-12-30T00:00:00Z'))).toBe('2025-W01');
    expect(isoWeek(new Date('2026-03-15T23:59:59Z'))).toBe('2026-W11');
    expect(isoWeek(new Date('2026-03-16T00:00:00Z'))).toBe('2026-W12');
  });
});
