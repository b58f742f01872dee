import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { deliveryStore } from '../store/delivery-store.ts';
import { idempotencyStore } from '../store/idempotency-store.ts';
import { rateWindowStore } from '../store/rate-window-store.ts';
import type { WorkerTask } from './worker.ts';

const DAY_MS = 86_400_000;

/**
 * The worker's clean-up: rate-limit windows older than a day, delivered webhooks older than 30 days (kept
 * that long for support questions; failed ones stay until resent or until their verification goes), and
 * expired Idempotency-Keys. Counts the keys it removed.
 */
export function sweepTask(deps: { db: Database; clock: Clock }): WorkerTask {
  return {
    name: 'sweep',
    run: async () => {
      const now = deps.clock.now();
      await rateWindowStore.sweep(deps.db.pool, new Date(now.getTime() - DAY_MS));
      await deliveryStore.sweepDelivered(deps.db.pool, new Date(now.getTime() - 30 * DAY_MS));
      return idempotencyStore.sweep(deps.db.pool, now);
    },
  };
}
