import type { Logger } from '../../../../gateway/src/logger.ts';

/** One kind of background work; returns how much it did (a full batch means: run again at once). */
export interface WorkerTask {
  readonly name: string;
  run(): Promise<number>;
  /** Size of a full batch: when `run` returns this many, the task runs again in the same pass. */
  readonly batch?: number;
}

export interface Worker {
  /** Runs one pass now (and waits for a pass in progress first). */
  runOnce(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The kyc plugin's background loop: provider steps, expiries, webhook deliveries and sweeps, every
 * `intervalMs`. The work lives in Postgres (rows locked with SKIP LOCKED), so every replica may run it:
 * nothing is lost on a crash, and no row is worked on by two replicas at once. A failing task is logged
 * and retried on the next pass; passes never overlap.
 */
export function startWorker(options: {
  tasks: readonly WorkerTask[];
  intervalMs: number;
  logger: Logger;
}): Worker {
  let current: Promise<void> | null = null;
  let stopped = false;

  const pass = async () => {
    for (const task of options.tasks) {
      try {
        // A backlog drains in one pass (up to 50 full batches), not one batch per interval.
        for (let round = 0; round < 50; round++) {
          const done = await task.run();
          if (stopped || task.batch === undefined || done < task.batch) break;
        }
      } catch (err) {
        options.logger.warn(
          { err: { message: (err as Error).message }, task: task.name },
          'kyc worker task failed',
        );
      }
    }
  };
  const runOnce = async () => {
    while (current) await current;
    current = pass().finally(() => {
      current = null;
    });
    await current;
  };
  const timer = setInterval(() => {
    if (!current && !stopped) void runOnce();
  }, options.intervalMs);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (current) await current;
    },
  };
}
