import type { Database } from '../../../../gateway/src/db/database.ts';
import type { Clock } from '../../../../gateway/src/clock.ts';
import { authErrors } from '../error-codes.ts';
import { attemptStore, type AttemptScope, type BackoffRule } from '../store/attempt-store.ts';

/**
 * Brute-force limits on login and registration (issue 4, point 7; DECISIONS.md, "Brute force"): per
 * account and per client address, counted in Postgres so every replica shares them; a soft exponential
 * delay past a free allowance, never a permanent lockout; refused requests get 429 `auth.rate_limited`
 * with Retry-After. Unknown emails are counted like known ones, so the limit reveals nothing.
 */
export function createThrottle(deps: {
  db: Database;
  clock: Clock;
  rules: Record<'account' | 'ip' | 'register', BackoffRule>;
}) {
  const ruleOf = (scope: AttemptScope) =>
    scope === 'login:account'
      ? deps.rules.account
      : scope === 'login:ip'
        ? deps.rules.ip
        : deps.rules.register;
  return {
    /** Throws 429 when any of the keys is blocked now. */
    async check(keys: ReadonlyArray<[AttemptScope, string]>): Promise<void> {
      const now = deps.clock.now();
      const until = await attemptStore.blockedUntil(deps.db.pool, keys, now);
      if (until === null) return;
      const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
      throw authErrors.create('auth.rate_limited', {
        headers: { 'Retry-After': String(seconds) },
        extensions: { retryAfter: seconds },
      });
    },
    async failed(keys: ReadonlyArray<[AttemptScope, string]>): Promise<void> {
      const now = deps.clock.now();
      for (const [scope, key] of keys)
        await attemptStore.recordFailure(deps.db.pool, scope, key, ruleOf(scope), now);
    },
    async succeeded(scope: AttemptScope, key: string): Promise<void> {
      await attemptStore.reset(deps.db.pool, scope, key);
    },
  };
}

export type Throttle = ReturnType<typeof createThrottle>;
