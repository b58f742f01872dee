import { type Logger, type Loop, startLoop } from '../../../../gateway/src/plugin-api.ts';

/** One kind of background work; returns how much it did (anything done means: look again at once). */
export interface WorkerTask {
  readonly name: string;
  run(): Promise<number>;
}

/**
 * The kyc plugin's background work: provider steps, expiries, webhook deliveries and sweeps, every
 * `intervalMs` on the core's loop (passes never overlap; a pass that did something is followed by another at
 * once, so a backlog drains). The work lives in Postgres (rows locked with SKIP LOCKED), so every replica may
 * run it: nothing is lost on a crash, and no row is worked on by two replicas at once. A failing task is
 * logged and retried on the next pass without holding back the others.
 */
export function startWorker(options: {
  tasks: readonly WorkerTask[];
  intervalMs: number;
  logger: Logger;
}): Loop {
  return startLoop({
    name: 'kyc',
    intervalMs: options.intervalMs,
    logger: options.logger,
    async pass() {
      let done = 0;
      for (const task of options.tasks) {
        try {
          done += await task.run();
        } catch (err) {
          options.logger.warn(
            { err: { message: (err as Error).message }, task: task.name },
            'kyc worker task failed',
          );
        }
      }
      return done;
    },
  });
}
