import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { queueStore } from '../store/queue-store.ts';

/** The plugin's part of `GET /api/v1/health/full`: messages queued and dead-lettered, replies failed. */
export async function queueHealth(db: Pick<Database, 'query'>) {
  return { status: 'ok' as const, queue: await queueStore.health(db) };
}
