/**
 * The wait before the next attempt after `failures` failed attempts (1 or more): the `failures`-th of
 * `delays`, the last one repeating for every failure after it.
 */
export function retryDelayMs(delays: readonly number[], failures: number): number {
  return delays[Math.min(failures - 1, delays.length - 1)] as number;
}
