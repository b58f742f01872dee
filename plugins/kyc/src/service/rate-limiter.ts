import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { rateWindowStore } from '../store/rate-window-store.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window, as far as this replica knows (other replicas' unused leases count as used). */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export interface RateLimiter {
  take(keyId: string): RateDecision | Promise<RateDecision>;
}

interface KeyState {
  windowStart: number;
  /** Leased tokens not yet spent on this replica. */
  tokens: number;
  /** The window's total leased by all replicas, as of this replica's last lease. */
  leased: number;
  lease: Promise<void> | null;
}

/**
 * Fixed-window rate limits per API key, shared by every replica through `kyc_rate_windows` without a
 * query per request: a replica leases tokens from the window's row in batches (an eighth of what is left,
 * at most 100, at least 1) and spends them locally. A lease is one atomic upsert that never takes the
 * window's total past the limit, so all replicas together admit at most `limit` requests per window;
 * tokens one replica leased but did not spend are lost to the others (near the limit batches shrink to
 * one token, so that loss stays small). Concurrent requests that find no local token share one lease.
 */
export function createRateLimiter(deps: {
  db: Database;
  clock: Clock;
  limit: number;
  windowSeconds: number;
}): RateLimiter {
  const windowMs = deps.windowSeconds * 1000;
  const states = new Map<string, KeyState>();

  const decision = (state: KeyState, allowed: boolean, now: number): RateDecision => ({
    allowed,
    limit: deps.limit,
    remaining: Math.max(0, deps.limit - state.leased + state.tokens),
    resetSeconds: Math.max(1, Math.ceil((state.windowStart + windowMs - now) / 1000)),
  });

  const lease = async (keyId: string, state: KeyState): Promise<void> => {
    const left = deps.limit - state.leased;
    const want = Math.max(1, Math.min(100, Math.floor(left / 8)));
    const result = await rateWindowStore.lease(deps.db.pool, {
      keyId,
      windowStart: new Date(state.windowStart),
      want,
      limit: deps.limit,
    });
    state.tokens += result.granted;
    state.leased = result.leased;
  };

  const take = (keyId: string): RateDecision | Promise<RateDecision> => {
    const now = deps.clock.nowMs();
    const windowStart = now - (now % windowMs);
    let state = states.get(keyId);
    if (!state || state.windowStart !== windowStart) {
      state = { windowStart, tokens: 0, leased: 0, lease: null };
      states.set(keyId, state);
      // Old windows are dropped as keys come back; bound the map against many idle keys.
      if (states.size > 50_000)
        for (const [id, s] of states) if (s.windowStart !== windowStart) states.delete(id);
    }
    if (state.tokens > 0) {
      state.tokens--;
      return decision(state, true, now);
    }
    if (state.leased >= deps.limit) return decision(state, false, now);
    const current = state;
    current.lease ??= lease(keyId, current).finally(() => {
      current.lease = null;
    });
    return current.lease.then(() => take(keyId));
  };

  return { take };
}
