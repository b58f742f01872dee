import type pg from 'pg';

type Queryable = Pick<pg.PoolClient, 'query'>;

export type AttemptScope = 'login:account' | 'login:ip' | 'register:ip';

export interface BackoffRule {
  /** Failures allowed in a window before the delay starts. */
  free: number;
  windowSeconds: number;
  baseSeconds: number;
  maxSeconds: number;
}

/** SQL of the brute-force counters (migrations/auth/0002). All times come from the caller's clock. */
export const attemptStore = {
  /** The latest `blocked_until` among the keys that is still in the future, or null. */
  async blockedUntil(
    db: Queryable,
    keys: ReadonlyArray<[AttemptScope, string]>,
    now: Date,
  ): Promise<Date | null> {
    if (keys.length === 0) return null;
    const { rows } = await db.query<{ until: Date | null }>(
      `SELECT max(blocked_until) AS until FROM auth_attempts
        WHERE (scope, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) AND blocked_until > $3`,
      [keys.map(([scope]) => scope), keys.map(([, key]) => key), now],
    );
    return rows[0]?.until ?? null;
  },

  /**
   * Counts one failure, atomically (concurrent failures on several replicas all count): a new window
   * starts when the old one has passed; past `free` failures, the key is blocked for
   * base × 2^(failures − free − 1) seconds, at most `max`.
   */
  async recordFailure(
    db: Queryable,
    scope: AttemptScope,
    key: string,
    rule: BackoffRule,
    now: Date,
  ): Promise<void> {
    // `next` is the failure count after this one; it appears twice because ON CONFLICT's SET sees only
    // the old row (a CTE could not update the row its own upsert just wrote, in the same statement).
    const next =
      'CASE WHEN a.window_started_at <= $3::timestamptz - make_interval(secs => $4::float8) THEN 1 ELSE a.failures + 1 END';
    const block = (count: string) =>
      `CASE WHEN ${count} > $5::int THEN $3::timestamptz + make_interval(secs => least($7::float8, $6::float8 * power(2, ${count} - $5::int - 1))) ELSE NULL END`;
    await db.query(
      `INSERT INTO auth_attempts AS a (scope, key, failures, window_started_at, blocked_until)
       VALUES ($1, $2, 1, $3::timestamptz, ${block('1')})
       ON CONFLICT (scope, key) DO UPDATE SET
         failures = ${next},
         window_started_at = CASE WHEN a.window_started_at <= $3::timestamptz - make_interval(secs => $4::float8) THEN $3::timestamptz ELSE a.window_started_at END,
         blocked_until = ${block(`(${next})`)}`,
      [scope, key, now, rule.windowSeconds, rule.free, rule.baseSeconds, rule.maxSeconds],
    );
  },

  async reset(db: Queryable, scope: AttemptScope, key: string): Promise<void> {
    await db.query('DELETE FROM auth_attempts WHERE scope = $1 AND key = $2', [scope, key]);
  },
};
