/**
 * Time is injected, never read directly, so TTLs, replay windows and token expiry are tested by moving a
 * clock instead of sleeping (docs/testing.md, "Rules the suites follow").
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  now(): Date;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  now: () => new Date(),
};

export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(at: Date | number): void;
}

/** A clock that only moves when told to; for tests and simulations. */
export function createManualClock(start: Date | number = Date.UTC(2026, 0, 1)): ManualClock {
  let current = typeof start === 'number' ? start : start.getTime();
  return {
    nowMs: () => current,
    now: () => new Date(current),
    advance(ms) {
      current += ms;
    },
    set(at) {
      current = typeof at === 'number' ? at : at.getTime();
    },
  };
}
