import { type Logger, type Loop, startLoop } from '../../../../gateway/src/plugin-api.ts';

/**
 * The processing queue's loop: `concurrency` lanes each take batches (the processor) until none is left.
 * It polls every `intervalMs` and is woken at once by `kick()` (the webhook, after a commit that queued
 * messages). The work lives in Postgres, so every replica may run a worker; lanes and replicas skip the
 * conversations another one holds.
 */
export function startQueueWorker(deps: {
  logger: Logger;
  concurrency: number;
  intervalMs: number;
  processor: { processBatch(): Promise<number> };
}): Loop {
  const { processor } = deps;
  return startLoop({
    name: 'queue',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    async pass() {
      const lanes = await Promise.all(
        Array.from({ length: deps.concurrency }, async () => {
          let total = 0;
          for (let n = await processor.processBatch(); n > 0; n = await processor.processBatch()) total += n;
          return total;
        }),
      );
      return lanes.reduce((a, b) => a + b, 0);
    },
  });
}
