import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { authErrors } from '../errors.ts';
import {
  attemptStore,
  type AttemptScope,
  type BackoffRule,
  type ReservedAttempt,
} from '../store/attempt-store.ts';

/** An attempt admitted by the limits and already counted on each of its keys. */
export interface Attempt {
  /**
   * It succeeded: a successful login clears its account's counter, and gives its place back on the other
   * keys (a success is not a guess, so it must not use up an address's allowance).
   */
  succeeded(): Promise<void>;
  /** It ended without a verdict (an error, a busy hasher): every key gets its place back. */
  abandoned(): Promise<void>;
}

/**
 * Brute-force limits on login, registration and SCIM bearer tokens (README, "Brute-force limits"): per
 * account and per client address, counted in Postgres so every replica shares them; a soft exponential
 * delay past a free allowance, never a permanent lockout; refused requests get 429 `auth.rate_limited` with
 * Retry-After.
 * Unknown emails are counted like known ones, so the limit reveals nothing.
 *
 * An attempt is reserved before its password is hashed (README, "Brute-force limits"): a burst of parallel
 * guesses gets exactly the allowance a series of them gets, on one replica or many.
 */
export function createThrottle(deps: {
  db: Database;
  clock: Clock;
  rules: Record<ThrottleRule, BackoffRule>;
}) {
  // SCIM requests refused for their token share the per-address allowance of logins: both are guesses.
  const rules: Record<AttemptScope, BackoffRule> = {
    'login:account': deps.rules.account,
    'login:ip': deps.rules.ip,
    'register:ip': deps.rules.register,
    'token:ip': deps.rules.token,
    'scim:ip': deps.rules.ip,
    // Second factors (TOTP, recovery codes, passkeys) are guesses too, counted apart from passwords so a
    // correct password followed by wrong codes cannot reset the count (README, "Brute-force limits").
    'factor:account': deps.rules.account,
    'factor:ip': deps.rules.ip,
  };
  const ruleOf = (scope: AttemptScope) => rules[scope];
  const giveBack = async (attempts: readonly ReservedAttempt[]) => {
    for (const attempt of attempts) await attemptStore.giveBack(deps.db.pool, attempt);
  };
  return {
    /** Counts one attempt on every key, or throws 429 (counting nothing) when any of them is blocked now. */
    async reserve(keys: ReadonlyArray<[AttemptScope, string]>): Promise<Attempt> {
      const now = deps.clock.now();
      const result = await attemptStore.reserve(
        deps.db,
        keys.map(([scope, key]) => ({ scope, key, rule: ruleOf(scope) })),
        now,
      );
      if (!result.ok) {
        const seconds = Math.max(1, Math.ceil((result.blockedUntil.getTime() - now.getTime()) / 1000));
        throw authErrors.create('auth.rate_limited', {
          headers: { 'Retry-After': String(seconds) },
          extensions: { retryAfter: seconds },
        });
      }
      const { reserved } = result;
      return {
        async succeeded() {
          for (const attempt of reserved) {
            if (attempt.scope === 'login:account' || attempt.scope === 'factor:account')
              await attemptStore.reset(deps.db.pool, attempt.scope, attempt.key);
            else await giveBack([attempt]);
          }
        },
        abandoned: () => giveBack(reserved),
      };
    },
  };
}

export type Throttle = ReturnType<typeof createThrottle>;

/** The limits: login per account and per address, registration and token requests (exchange, refresh) per address. */
type ThrottleRule = 'account' | 'ip' | 'register' | 'token';

/**
 * The limits the settings give: per account and per client address on login, per client address on
 * registration; free attempts in a window, then a delay doubling from one second up to the maximum.
 */
export function throttleRules(config: AuthEnv): Record<ThrottleRule, BackoffRule> {
  const backoff = {
    windowSeconds: config.ATTEMPT_WINDOW_SECONDS,
    baseSeconds: 1,
    maxSeconds: config.ATTEMPT_MAX_DELAY_SECONDS,
  };
  return {
    account: { ...backoff, free: config.LOGIN_FREE_FAILURES_PER_ACCOUNT },
    ip: { ...backoff, free: config.LOGIN_FREE_FAILURES_PER_IP },
    register: { ...backoff, free: config.REGISTER_FREE_ATTEMPTS_PER_IP },
    token: { ...backoff, free: config.TOKEN_FREE_FAILURES_PER_IP },
  };
}
