import { describe, expect, it } from 'vitest';
import { sameSecret } from './same-secret.ts';

describe('sameSecret', () => {
  it('is true only for the same text', () => {
    expect(sameSecret('verify-token', 'verify-token')).toBe(true);
    expect(sameSecret('verify-token', 'verify-tokem')).toBe(false);
    expect(sameSecret('verify', 'verify-token')).toBe(false);
    expect(sameSecret('', 'verify-token')).toBe(false);
    expect(sameSecret('', '')).toBe(true);
  });

  it('compares the UTF-8 text, not code units that happen to collide', () => {
    expect(sameSecret('é', 'e\u0301')).toBe(false);
    expect(sameSecret('\u{1F600}', '\u{1F600}')).toBe(true);
  });
});
