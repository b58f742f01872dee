import type { Logger } from '../logger.ts';

export interface Loop {
  /** Runs a pass now (or right after the one in progress). */
  kick(): void;
  stop(): Promise<void>;
}

/**
 * A plugin's background work (queues, outboxes, sweeps over rows in Postgres): runs `pass` every
 * `intervalMs`, and at once when kicked; passes never overlap, and a pass that did something is followed by
 * another straight away (a backlog drains without waiting for the timer). A failing pass is logged and
 * tried again on the next tick. `stop` waits for the pass in progress.
 */
export function startLoop(options: {
  name: string;
  intervalMs: number;
  logger: Logger;
  pass(): Promise<number>;
}): Loop {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          if ((await options.pass()) > 0) again = true;
        } catch (err) {
          options.logger.warn(
            { err: { message: (err as Error).message }, loop: options.name },
            'background loop pass failed',
          );
          again = false;
        }
      } while (again && !stopped);
    })().finally(() => {
      running = null;
    });
  };
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  return {
    kick: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (running) await running;
    },
  };
}
