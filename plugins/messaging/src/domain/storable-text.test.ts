import { describe, expect, it } from 'vitest';
import { storableJson } from './storable-text.ts';

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
