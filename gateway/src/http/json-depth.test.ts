import { describe, expect, it } from 'vitest';
import { exceedsDepth } from './json-depth.ts';

const nested = (depth: number, open = '[', close = ']') =>
  JSON.parse(open.repeat(depth) + close.repeat(depth)) as unknown;

describe('exceedsDepth', () => {
  it('counts a bare object or array as one level; scalars as none', () => {
    expect(exceedsDepth('text', 0)).toBe(false);
    expect(exceedsDepth(null, 0)).toBe(false);
    expect(exceedsDepth({}, 0)).toBe(true);
    expect(exceedsDepth({}, 1)).toBe(false);
    expect(exceedsDepth([[]], 1)).toBe(true);
  });

  it('allows exactly the limit and refuses one more, for arrays and objects alike', () => {
    expect(exceedsDepth(nested(64), 64)).toBe(false);
    expect(exceedsDepth(nested(65), 64)).toBe(true);
    let object: unknown = {};
    for (let i = 1; i < 64; i++) object = { a: object };
    expect(exceedsDepth(object, 64)).toBe(false);
    expect(exceedsDepth({ wrap: object }, 64)).toBe(true);
  });

  it('finds a deep branch beside shallow ones', () => {
    expect(exceedsDepth({ a: 1, b: [1, 2, { c: nested(70) }], d: 'x' }, 64)).toBe(true);
  });

  it('walks a million levels without overflowing the stack', () => {
    expect(exceedsDepth(nested(1_000_000), 64)).toBe(true);
  });
});
