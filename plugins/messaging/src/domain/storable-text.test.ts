import { describe, expect, it } from 'vitest';
import { isCleanIdentifier, storableJson, storableText } from './storable-text.ts';

describe('storableText', () => {
  it('replaces NUL and unpaired surrogates with U+FFFD and keeps everything else', () => {
    expect(storableText('a\u0000b\ud800c\udc00d')).toBe('a\ufffdb\ufffdc\ufffdd');
    expect(storableText('halo 😀 \u0007\t')).toBe('halo 😀 \u0007\t');
  });
});

describe('isCleanIdentifier', () => {
  it('refuses control characters and unpaired surrogates', () => {
    expect(isCleanIdentifier('wamid.HBgL-_=+/')).toBe(true);
    for (const bad of ['a\u0000', 'a\u0007', 'a\u007f', 'a\u0085', 'a\ud800', '\udc00a', 'a\nb'])
      expect(isCleanIdentifier(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('storableJson', () => {
  it('copies, with every string and key made storable, `__proto__` kept as a plain key', () => {
    const value = JSON.parse('{"k\\u0000":["v\\ud800",1,null,true],"__proto__":{"x":"y"}}') as unknown;
    const copy = storableJson(value, 32);
    expect(JSON.stringify(copy?.value)).toBe('{"k\ufffd":["v\ufffd",1,null,true],"__proto__":{"x":"y"}}');
    expect(Object.getPrototypeOf(copy?.value)).toBe(Object.prototype);
  });

  it('refuses a value nested deeper than the limit, however deep', () => {
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level++) deep = [deep];
    expect(storableJson(deep, 32)).toBeNull();
    let fits: unknown = 'x';
    for (let level = 0; level < 32; level++) fits = [fits];
    expect(storableJson(fits, 32)).not.toBeNull();
  });
});
