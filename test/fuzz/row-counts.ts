/**
 * Row counts of every table of the fuzzed gateway's database, to prove that a refused request wrote
 * nothing. The tables are read from the catalogue, so a table a plugin adds later is counted too.
 */
import type pg from 'pg';
import { eventually } from '../support/eventually.ts';

export type RowCounts = ReadonlyMap<string, number>;

/**
 * Tables a refused request may legitimately write, each with the reason. Everything else must be unchanged
 * by a 4xx.
 */
export const WRITTEN_BY_REFUSALS: Readonly<Record<string, string>> = {
  // The gate audits failed checks (warn: would_deny; enforce: the refusal), every write and every call to a
  // sensitive route before the handler runs, failed API keys and failed logins: refusals are audited.
  audit_log: 'refusals are audited',
  // The brute-force limiter counts failed sign-ins and registrations per account and per address: a refused
  // login must be counted, or the limit means nothing.
  auth_attempts: 'the sign-in limiter counts refusals',
  // The API-key rate limiter takes a request from the key's window before validation: a refused request
  // still spends the caller's allowance.
  kyc_rate_windows: 'the API-key limiter counts every authenticated request',
};

export interface RowCounter {
  counts(): Promise<RowCounts>;
}

/** Counts the rows of every table in `public` but the ones refusals may write, in one statement. */
export async function rowCounter(pool: pg.Pool): Promise<RowCounter> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const tables = rows.map((row) => row.name).filter((name) => !(name in WRITTEN_BY_REFUSALS));
  const sql = tables
    .map((name) => `SELECT '${name}' AS name, count(*)::int AS n FROM "${name}"`)
    .join(' UNION ALL ');
  return {
    async counts() {
      const result = await pool.query<{ name: string; n: number }>(sql);
      return new Map(result.rows.map((row) => [row.name, row.n]));
    },
  };
}

/** `table: before → after` for each table whose count changed. */
export function changedTables(before: RowCounts, after: RowCounts): string[] {
  const changed: string[] = [];
  for (const [name, count] of after) {
    const was = before.get(name) ?? 0;
    if (was !== count) changed.push(`${name}: ${was} → ${count}`);
  }
  return changed;
}

/**
 * Waits until the row counts hold still for `quietPolls` polls in a row, 100 ms apart: background passes (the
 * queue, verifications, webhooks) run every 50 ms and end within a second.
 */
export async function rowsSettled(counter: RowCounter, what: string, quietPolls: number): Promise<void> {
  let last: RowCounts = await counter.counts();
  let quiet = 0;
  await eventually(
    what,
    30_000,
    async () => {
      const now = await counter.counts();
      quiet = changedTables(last, now).length === 0 ? quiet + 1 : 0;
      last = now;
      return quiet >= quietPolls ? true : undefined;
    },
    100,
  );
}
