import { describe, expect, it } from 'vitest';
import { loadDenylist } from './password-denylist.ts';

const denylist = loadDenylist();

describe('the embedded password denylist', () => {
  it('ships a denylist of at least 100,000 common passwords', () => {
    expect(denylist.size).toBeGreaterThanOrEqual(100_000);
    for (const common of ['123456', 'password', 'iloveyou', 'qwerty123', 'trustno1'])
      expect(denylist.has(common)).toBe(true);
  });
});
