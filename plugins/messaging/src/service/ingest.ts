import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import type { InboundMessage, StatusUpdate } from '../domain/webhook-notification.ts';
import { ingestStore } from '../store/ingest-store.ts';
import { createIngestBatcher } from './ingest-batcher.ts';

/** Durable ingest: what the webhook stores before it answers. */
export interface Ingest {
  /**
   * Stores a notification's valid messages as queued and applies its status updates, all committed before
   * it resolves; returns how many messages were new (a redelivery stores nothing).
   */
  store(notification: {
    messages: readonly InboundMessage[];
    statuses: readonly StatusUpdate[];
  }): Promise<number>;
}

/**
 * The webhook's writes (plugins/messaging/README.md, "How a message flows", point 2). The usual
 * notification, messages only, joins the next group-committed write (see the ingest batcher); one with
 * status updates is written in a transaction of its own.
 */
export function createIngest(deps: { db: Database; clock: Clock }): Ingest {
  const batcher = createIngestBatcher((messages) =>
    ingestStore.insertInbound(deps.db.pool, messages, deps.clock.now()),
  );
  return {
    async store({ messages, statuses }) {
      if (statuses.length === 0) {
        return messages.length > 0 ? (await batcher.submit(messages)).size : 0;
      }
      return deps.db.transaction(async (tx) => {
        const ids =
          messages.length > 0
            ? await ingestStore.insertInbound(tx, messages, deps.clock.now())
            : new Set<string>();
        for (const status of statuses) await ingestStore.applyStatus(tx, status);
        return ids.size;
      });
    },
  };
}
