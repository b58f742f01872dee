import { describe, expect, it } from 'vitest';
import { BACKOFF_SCHEDULE_MS, backoffDelayMs } from './backoff.ts';

describe('webhook backoff', () => {
  it('follows the schedule at the middle of the jitter', () => {
    expect([1, 2, 3, 4].map((n) => backoffDelayMs(n, () => 0.5))).toEqual([10_000, 30_000, 60_000, 300_000]);
  });

  it('spreads each wait by ±20 %', () => {
    expect(backoffDelayMs(1, () => 0)).toBe(8_000);
    expect(backoffDelayMs(1, () => 0.999_999)).toBe(12_000);
  });

  it('grows, then stays at the 12 h cap', () => {
    for (let n = 2; n <= BACKOFF_SCHEDULE_MS.length; n++) {
      expect(backoffDelayMs(n, () => 0.5)).toBeGreaterThan(backoffDelayMs(n - 1, () => 0.5));
    }
    expect(backoffDelayMs(50, () => 0.5)).toBe(12 * 60 * 60_000);
  });
});
