import { LRUCache } from 'lru-cache';
import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { userStore, type LiveAccount } from '../store/user-store.ts';

/** Missing or disabled: cached too, so a dead account's sessions are refused without a query each time. */
const DEAD = Symbol('dead');

export interface AccountCache {
  /** The cached state of an account: live, null (missing or disabled), or undefined when not cached. */
  peek(userId: string): LiveAccount | null | undefined;
  /** Reads the account from the database and caches it (unless it changed while being read). */
  load(userId: string): Promise<LiveAccount | null>;
  /** Drops one account (its roles or state changed), or every account (`null`). */
  invalidate(userId: string | null): void;
  /**
   * Drops every account, and from now on caches reads only when `listening`: while the change
   * notifications cannot arrive, every request reads the account from the database.
   */
  setListening(listening: boolean): void;
}

/**
 * The current roles and state of the accounts behind this replica's sessions, in memory so the session
 * resolver answers a known account synchronously. An entry is dropped when the account changes (the
 * `auth_account_changed` notification, service/session-sync.ts) and refilled from the database on the
 * next request.
 *
 * A read racing a change must not cache what it read before the change: every invalidation bumps a
 * generation, and a read that started under an older generation answers its request without filling the
 * cache. Reads of one account share one query.
 */
export function createAccountCache(deps: { db: Database; maxEntries: number }): AccountCache {
  // The notifications keep entries current; the minute is a backstop against one lost without a disconnect.
  const cache = new LRUCache<string, LiveAccount | typeof DEAD>({ max: deps.maxEntries, ttl: 60_000 });
  const reading = new Map<string, Promise<LiveAccount | null>>();
  let generation = 0;
  let listening = true;

  const invalidate = (userId: string | null): void => {
    generation++;
    if (userId === null) {
      cache.clear();
      reading.clear();
    } else {
      cache.delete(userId);
      reading.delete(userId);
    }
  };

  return {
    peek(userId) {
      const entry = cache.get(userId);
      return entry === DEAD ? null : entry;
    },
    load(userId) {
      const shared = reading.get(userId);
      if (shared) return shared;
      const started = generation;
      const pending = userStore
        .live(deps.db.pool, userId)
        .then((account) => {
          const value = account ? { email: account.email, roles: Object.freeze([...account.roles]) } : null;
          if (listening && generation === started) cache.set(userId, value ?? DEAD);
          return value;
        })
        .finally(() => {
          if (reading.get(userId) === pending) reading.delete(userId);
        });
      reading.set(userId, pending);
      return pending;
    },
    invalidate,
    setListening(next) {
      listening = next;
      invalidate(null);
    },
  };
}
