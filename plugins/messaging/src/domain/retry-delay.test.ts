import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './retry-delay.ts';

describe('retryDelayMs', () => {
  it('waits the n-th delay after the n-th failure, and the last one after every later failure', () => {
    const delays = [1_000, 5_000, 30_000];
    expect([1, 2, 3, 4, 10].map((failures) => retryDelayMs(delays, failures))).toEqual([
      1_000, 5_000, 30_000, 30_000, 30_000,
    ]);
  });
});
