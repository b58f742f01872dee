import type { Database } from '../../../../gateway/src/plugin-api.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** What is counted, per what: sign-ins, registrations, token requests, SCIM requests refused for their bearer token. */
export type AttemptScope =
  'login:account' | 'login:ip' | 'register:ip' | 'token:ip' | 'scim:ip' | 'factor:account' | 'factor:ip';

export interface BackoffRule {
  /** Attempts allowed in a window before the delay starts. */
  free: number;
  windowSeconds: number;
  baseSeconds: number;
  maxSeconds: number;
}

export interface AttemptKey {
  scope: AttemptScope;
  key: string;
  rule: BackoffRule;
}

/** One attempt counted on one key, with what is needed to give it back. */
export interface ReservedAttempt {
  scope: AttemptScope;
  key: string;
  /** The key's count once this attempt was added, and the window it was added to. */
  count: number;
  windowStartedAt: Date;
  /** The key's block before this attempt: restored when the attempt is given back first. */
  previousUntil: Date | null;
}

export type Reservation = { ok: true; reserved: ReservedAttempt[] } | { ok: false; blockedUntil: Date };

/** Thrown inside the transaction to roll it back when a key is blocked. */
class Blocked extends Error {
  readonly until: Date;
  constructor(until: Date) {
    super('blocked');
    this.until = until;
  }
}

interface Row {
  scope: AttemptScope;
  key: string;
  failures: number;
  windowStartedAt: Date;
  blockedUntil: Date | null;
}
const ROW = `scope, key, failures, window_started_at AS "windowStartedAt", blocked_until AS "blockedUntil"`;

/**
 * SQL of the brute-force counters (migrations/auth/0002). All times come from the caller's clock.
 *
 * An attempt is counted before it is evaluated (README, "Brute-force limits"): a burst of parallel attempts is
 * admitted exactly as the same attempts one after the other would be, because each one reserves its place
 * under the row locks of its keys before any password is hashed.
 */
export const attemptStore = {
  /**
   * Reserves one attempt on every key, atomically: when any key is blocked now, nothing is counted and the
   * latest block is returned; otherwise every key counts one more attempt. Past `free` attempts in its
   * window a key is blocked for base × 2^(count − free − 1) seconds, at most `max` (the attempt that
   * crosses the allowance is itself admitted; the next one waits). A window starts again once it passed.
   */
  async reserve(
    db: Pick<Database, 'transaction'>,
    keys: readonly AttemptKey[],
    now: Date,
  ): Promise<Reservation> {
    // One lock order for every caller, so two reservations of overlapping keys cannot deadlock.
    const sorted = [...keys].sort((a, b) => compare(order(a), order(b)));
    try {
      const reserved = await db.transaction(async (tx) => {
        const before = await lockRows(tx, sorted, now);
        const blocked = before.filter((row) => row.blockedUntil !== null && row.blockedUntil > now);
        if (blocked.length > 0) throw new Blocked(latest(blocked.map((row) => row.blockedUntil as Date)));
        const after = await countAttempt(tx, sorted, now);
        return after.map((row) => ({
          scope: row.scope,
          key: row.key,
          count: row.failures,
          windowStartedAt: row.windowStartedAt,
          previousUntil: before.find((b) => b.scope === row.scope && b.key === row.key)?.blockedUntil ?? null,
        }));
      });
      return { ok: true, reserved };
    } catch (err) {
      if (err instanceof Blocked) return { ok: false, blockedUntil: err.until };
      throw err;
    }
  },

  /**
   * Gives a reserved attempt back (it succeeded, or never got a verdict). While no later attempt was
   * counted on the key, the key returns to its state before; otherwise only the count goes down (the later
   * attempt's block stays). Nothing happens when the window has started again since.
   */
  async giveBack(db: Queryable, attempt: ReservedAttempt): Promise<void> {
    await db.query(
      `UPDATE auth_attempts SET
         failures = greatest(failures - 1, 0),
         blocked_until = CASE WHEN failures = $3 THEN $5::timestamptz ELSE blocked_until END
       WHERE scope = $1 AND key = $2 AND window_started_at = $4`,
      [attempt.scope, attempt.key, attempt.count, attempt.windowStartedAt, attempt.previousUntil],
    );
  },

  async reset(db: Queryable, scope: AttemptScope, key: string): Promise<void> {
    await db.query('DELETE FROM auth_attempts WHERE scope = $1 AND key = $2', [scope, key]);
  },
};

const order = (k: { scope: string; key: string }) => `${k.scope}\u0000${k.key}`;
/** By UTF-16 code units: the same order in every process, whatever its locale. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const latest = (dates: readonly Date[]) => new Date(Math.max(...dates.map((d) => d.getTime())));

/**
 * Makes sure every key has a row and locks them all, in the given order, returning their current state.
 * The no-op update on conflict is what takes the row lock of an existing row (and waits for a concurrent
 * reservation of it to commit, then returns the row as that one left it).
 */
async function lockRows(tx: Queryable, keys: readonly AttemptKey[], now: Date): Promise<Row[]> {
  const { rows } = await tx.query<Row>(
    `INSERT INTO auth_attempts AS a (scope, key, failures, window_started_at)
     SELECT k.scope, k.key, 0, $3::timestamptz FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(scope, key, n)
      ORDER BY k.n
     ON CONFLICT (scope, key) DO UPDATE SET failures = a.failures
     RETURNING ${ROW}`,
    [keys.map((k) => k.scope), keys.map((k) => k.key), now],
  );
  return rows;
}

/** Counts one attempt on every (locked) key, starting a new window where the old one has passed. */
async function countAttempt(tx: Queryable, keys: readonly AttemptKey[], now: Date): Promise<Row[]> {
  const expired = 'a.window_started_at <= $3::timestamptz - make_interval(secs => r.window_s)';
  const next = `CASE WHEN ${expired} THEN 1 ELSE a.failures + 1 END`;
  const { rows } = await tx.query<Row>(
    `UPDATE auth_attempts AS a SET
       failures = ${next},
       window_started_at = CASE WHEN ${expired} THEN $3::timestamptz ELSE a.window_started_at END,
       blocked_until = CASE WHEN ${next} > r.free
         THEN $3::timestamptz + make_interval(secs => least(r.max_s, r.base_s * power(2, ${next} - r.free - 1)))
         ELSE NULL END
     FROM unnest($1::text[], $2::text[], $4::float8[], $5::int[], $6::float8[], $7::float8[])
          AS r(scope, key, window_s, free, base_s, max_s)
     WHERE a.scope = r.scope AND a.key = r.key
     RETURNING a.scope, a.key, a.failures, a.window_started_at AS "windowStartedAt", a.blocked_until AS "blockedUntil"`,
    [
      keys.map((k) => k.scope),
      keys.map((k) => k.key),
      now,
      keys.map((k) => k.rule.windowSeconds),
      keys.map((k) => k.rule.free),
      keys.map((k) => k.rule.baseSeconds),
      keys.map((k) => k.rule.maxSeconds),
    ],
  );
  return rows;
}
