/**
 * Waits after the 1st, 2nd, ... failed attempt of a delivery: quick at first (a receiver restarting),
 * then spreading out, capped at 12 hours. With the default KYC_WEBHOOK_MAX_ATTEMPTS (12) the last attempt
 * comes about 28 hours after the first, so a receiver down for a day still gets every event.
 */
export const BACKOFF_SCHEDULE_MS: readonly number[] = [
  10_000, // 10 s
  30_000, // 30 s
  60_000, // 1 min
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  60 * 60_000, // 1 h
  2 * 60 * 60_000,
  4 * 60 * 60_000,
  8 * 60 * 60_000,
  12 * 60 * 60_000, // the cap
];

/** Jitter, as a fraction of the wait either way. */
export const BACKOFF_JITTER = 0.2;

/**
 * How long to wait after the `failures`-th failed attempt (1-based, counted since the delivery was last
 * queued). The wait is spread by ±20 % so that deliveries that failed together (a receiver's outage) do
 * not all come back in the same instant, from every replica.
 */
export function backoffDelayMs(failures: number, random: () => number = Math.random): number {
  const index = Math.min(Math.max(failures, 1), BACKOFF_SCHEDULE_MS.length) - 1;
  const base = BACKOFF_SCHEDULE_MS[index] as number;
  return Math.round(base * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * random()));
}
