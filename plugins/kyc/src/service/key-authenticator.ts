import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  type Clock,
  type Database,
  listen,
  type Listener,
  type Logger,
} from '../../../../gateway/src/plugin-api.ts';
import { API_KEY_PATTERN, hashKey } from '../domain/api-key.ts';
import { KEY_CHANNEL, parseKeyChange } from '../domain/change-channels.ts';
import { keyStore, type KeyWithTenant } from '../store/key-store.ts';

export type KeyFailure = 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired';
export type KeyCheck = { ok: true; key: KeyWithTenant } | { ok: false; reason: KeyFailure };

export interface KeyAuthenticator {
  check(presented: string | undefined): Promise<KeyCheck>;
  /** Drops cached entries on this replica now (the NOTIFY reaches the others). */
  forget(target: { keyId?: string; tenantId?: string }): void;
  stop(): Promise<void>;
}

/**
 * Authenticates `X-Api-Key` (README, "Keys"): looked up by SHA-256 hash, the stored hash compared in
 * constant time, revoked and expired keys refused.
 *
 * Found keys are cached in memory (bounded, 60 s at most) so a tenant polling a status does not cost a
 * query per request. The cache is only trusted while this replica LISTENs on `kyc_keys_changed`, which
 * every revocation and tenant change NOTIFYs on commit: a key revoked on any replica, or by the CLI, is
 * refused everywhere as soon as the notification arrives. While the listener is down, every request reads
 * the database. `last_used_at` is written in batches every 30 s.
 */
export async function createKeyAuthenticator(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
}): Promise<KeyAuthenticator> {
  const cache = new LRUCache<string, { entry: KeyWithTenant; at: number }>({ max: 10_000 });
  const TTL_MS = 60_000;

  const listener: Listener = await listen({
    db: deps.db,
    logger: deps.logger,
    channels: [KEY_CHANNEL],
    onNotify: (_channel, payload) => forget(parseKeyChange(payload)),
    onConnected: () => cache.clear(),
    onDisconnected: () => cache.clear(),
  });

  function forget(target: { keyId?: string; tenantId?: string }): void {
    for (const [hash, { entry }] of cache.entries()) {
      if (entry.keyId === target.keyId || entry.tenant.id === target.tenantId) cache.delete(hash);
    }
  }

  const usage = recordKeyUse(deps);

  const lookup = async (hash: Buffer): Promise<KeyWithTenant | null> => {
    const cacheKey = hash.toString('base64');
    const now = deps.clock.nowMs();
    const cached = listener.connected ? cache.get(cacheKey) : undefined;
    if (cached && now - cached.at < TTL_MS) return cached.entry;
    const found = await keyStore.findByHash(deps.db.pool, hash);
    if (found && listener.connected) cache.set(cacheKey, { entry: found, at: now });
    return found;
  };

  return {
    async check(presented) {
      if (presented === undefined || presented === '') return { ok: false, reason: 'missing' };
      if (!API_KEY_PATTERN.test(presented)) return { ok: false, reason: 'malformed' };
      const hash = hashKey(presented);
      const found = await lookup(hash);
      // The index found the row by hash; the comparison itself is constant-time as well.
      if (!found || !timingSafeEqual(found.keyHash, hash)) return { ok: false, reason: 'unknown' };
      if (found.revokedAt !== null) return { ok: false, reason: 'revoked' };
      if (found.expiresAt !== null && found.expiresAt.getTime() <= deps.clock.nowMs()) {
        return { ok: false, reason: 'expired' };
      }
      usage.add(found.keyId);
      return { ok: true, key: found };
    },
    forget,
    async stop() {
      await usage.stop();
      await listener.stop();
    },
  };
}

/** `last_used_at` of the keys used, written in one statement every 30 s and at shutdown, not per request. */
function recordKeyUse(deps: { db: Database; clock: Clock; logger: Logger }) {
  const used = new Set<string>();
  const flush = async () => {
    if (used.size === 0) return;
    const ids = [...used];
    used.clear();
    await keyStore.touch(deps.db.pool, ids, deps.clock.now()).catch((err: unknown) => {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'kyc: recording key use failed');
    });
  };
  const timer = setInterval(() => void flush(), 30_000);
  timer.unref();
  return {
    add(keyId: string): void {
      used.add(keyId);
    },
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
