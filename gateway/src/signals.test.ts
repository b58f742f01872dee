import { afterEach, describe, expect, it } from 'vitest';
import { waitForStopRequest } from './signals.ts';

const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** The listeners of each stop signal that were there before the test (the test runner's own). */
function snapshot(): Map<StopSignal, Set<(...args: unknown[]) => void>> {
  return new Map(
    STOP_SIGNALS.map((signal) => [
      signal,
      new Set(process.listeners(signal) as Array<(...args: unknown[]) => void>),
    ]),
  );
}

let before = snapshot();

afterEach(() => {
  // Whatever the module installed (the "exit now on the next signal" handlers) must not outlive the test.
  for (const signal of STOP_SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)?.has(listener as (...args: unknown[]) => void)) process.off(signal, listener);
    }
  }
});

describe('waitForStopRequest', () => {
  it('resolves with the first stop signal', async () => {
    before = snapshot();
    const request = waitForStopRequest();
    process.emit('SIGTERM', 'SIGTERM');
    expect(await request).toEqual({ kind: 'signal', signal: 'SIGTERM' });
  });

  it('never leaves a stop signal without a handler of its own, even for an instant', async () => {
    // Removing a signal's last listener restores the default action: a second Ctrl-C (npm forwards the one
    // its process group already got) arriving in that gap kills the process before it has shut down.
    before = snapshot();
    const ownListeners = (signal: StopSignal) =>
      process.listenerCount(signal) - (before.get(signal)?.size ?? 0);
    const gaps: string[] = [];
    const watch = (event: string | symbol) => {
      if (STOP_SIGNALS.includes(event as StopSignal) && ownListeners(event as StopSignal) < 1)
        gaps.push(String(event));
    };
    process.on('removeListener', watch);
    try {
      const request = waitForStopRequest();
      process.emit('SIGINT', 'SIGINT');
      await request;
    } finally {
      process.off('removeListener', watch);
    }
    expect(gaps).toEqual([]);
    for (const signal of STOP_SIGNALS) expect(ownListeners(signal)).toBeGreaterThan(0);
  });
});
