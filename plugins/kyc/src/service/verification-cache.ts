import { LRUCache } from 'lru-cache';
import {
  type Clock,
  type Database,
  listen,
  type Listener,
  type Logger,
} from '../../../../gateway/src/plugin-api.ts';
import { VERIFICATION_CHANNEL } from '../domain/change-channels.ts';

export interface VerificationCache {
  /** The cached JSON of a tenant's verification, or what `load` returns (cached when still current). */
  read(tenantId: string, id: string, load: () => Promise<string | null>): Promise<string | null>;
  /** Drops an entry on this replica now (after a commit here; other replicas hear the NOTIFY). */
  invalidate(id: string): void;
  stop(): Promise<void>;
}

/**
 * Status reads are what tenants poll; this keeps the serialized view of recently read verifications in
 * memory so a poll costs no query (ADR 0005: status reads at ≥ 0.5× bare Express).
 *
 * Correctness rests on `kyc_verification_changed`: every transition NOTIFYs it in its transaction, so
 * every replica drops the entry when the change commits. The cache is used only while the LISTEN
 * connection is up (it is cleared on every connect and disconnect: notifications may have been missed).
 * A read that raced with a change (it loaded before the commit, and the notification arrived before it
 * stored) does not store: any invalidation during a load voids that load's entry. Entries also expire
 * after 30 s, a backstop only.
 */
export async function createVerificationCache(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
  max?: number;
}): Promise<VerificationCache> {
  const TTL_MS = 30_000;
  const cache = new LRUCache<string, { tenantId: string; json: string; at: number }>({
    max: deps.max ?? 10_000,
  });
  /** Bumped by every invalidation: a load that saw it change does not store. */
  let generation = 0;

  const invalidate = (id: string) => {
    generation++;
    cache.delete(id);
  };
  const listener: Listener = await listen({
    db: deps.db,
    logger: deps.logger,
    channels: [VERIFICATION_CHANNEL],
    onNotify: (_channel, id) => invalidate(id),
    onConnected: () => {
      generation++;
      cache.clear();
    },
    onDisconnected: () => {
      generation++;
      cache.clear();
    },
  });

  return {
    async read(tenantId, id, load) {
      const now = deps.clock.nowMs();
      if (listener.connected) {
        const hit = cache.get(id);
        if (hit && now - hit.at < TTL_MS) return hit.tenantId === tenantId ? hit.json : null;
      }
      const startedAt = generation;
      const json = await load();
      if (json !== null && listener.connected && generation === startedAt) {
        cache.set(id, { tenantId, json, at: now });
      }
      return json;
    },
    invalidate,
    stop: () => listener.stop(),
  };
}
