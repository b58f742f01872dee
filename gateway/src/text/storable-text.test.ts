import { describe, expect, it } from 'vitest';
import { isCleanIdentifier, storableText, textProblem } from './storable-text.ts';

describe('textProblem', () => {
  it('accepts ordinary text, paired surrogates (emoji) and other control characters', () => {
    expect(textProblem('Zoë 😀 \t\n\u0001\uffff')).toBeNull();
  });

  it('refuses U+0000 and unpaired surrogates, leading or trailing', () => {
    expect(textProblem('a\u0000b')).toMatch(/U\+0000/);
    for (const text of ['\ud800', 'a\udc00', '\ude00\ud83d', 'x\ud83d'])
      expect(textProblem(text)).toMatch(/surrogate/);
  });
});

describe('storable text', () => {
  it('storableText replaces U+0000 and unpaired surrogates with U+FFFD and keeps the rest', () => {
    expect(storableText('a\u0000b\ud800c\udc00d')).toBe('a\ufffdb\ufffdc\ufffdd');
    expect(storableText('halo 😀 \u0007\t')).toBe('halo 😀 \u0007\t');
  });

  it('isCleanIdentifier refuses control characters and unpaired surrogates', () => {
    expect(isCleanIdentifier('wamid.HBgL-_=+/')).toBe(true);
    expect(isCleanIdentifier('用户 ädmin')).toBe(true);
    for (const bad of ['a\u0000', 'a\u0007', 'a\t', 'a\r\nb', 'a\u007f', 'a\u0085', 'a\ud800', '\udc00'])
      expect(isCleanIdentifier(bad), JSON.stringify(bad)).toBe(false);
  });
});
