import { namedStatement, type Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { LeadStatusName } from '../domain/lead-schemas.ts';
import { scopeCondition, SqlParams, whereClause } from './lead-rows.ts';

export interface LeadSummaryRequest {
  from: Date;
  to: Date;
  /** An IANA zone PostgreSQL knows (see `timeZones`). */
  tz: string;
  clusters: readonly string[] | null;
}

/** The counts of the leads created in a range, grouped three ways in one pass. */
export interface LeadSummaryCounts {
  byStatus: Array<{ status: LeadStatusName; count: number }>;
  byCluster: Array<{ clusterId: string | null; count: number }>;
  /** Only the days that have leads, as `YYYY-MM-DD` in the zone. */
  byDay: Array<{ date: string; count: number }>;
  /** The range's first and last calendar day in the zone. */
  firstDay: string;
  lastDay: string;
}

interface CountRow {
  by_status: number;
  by_cluster: number;
  effective_status: LeadStatusName | null;
  cluster_id: string | null;
  day: string | null;
  n: number;
}

/** The three groupings of a result, as the summary shows them. */
function grouped(rows: CountRow[], firstDay: string, lastDay: string): LeadSummaryCounts {
  return {
    byStatus: rows
      .filter((row) => row.by_status === 0)
      .map((row) => ({ status: row.effective_status as LeadStatusName, count: row.n })),
    byCluster: rows
      .filter((row) => row.by_status === 1 && row.by_cluster === 0)
      .map((row) => ({ clusterId: row.cluster_id, count: row.n })),
    byDay: rows
      .filter((row) => row.by_status === 1 && row.by_cluster === 1)
      .map((row) => ({ date: row.day as string, count: row.n })),
    firstDay,
    lastDay,
  };
}

/** The summary's aggregates (README, "Staff API", "Leads"), limited to the caller's clusters. */
export const leadSummaryStore = {
  /** The summary by a scan of every lead of the range: any zone. */
  async counts(db: Queryable, request: LeadSummaryRequest): Promise<LeadSummaryCounts> {
    const params = new SqlParams();
    const from = params.add(request.from);
    const to = params.add(request.to);
    const tz = params.add(request.tz);
    const where = [
      `l.created_at >= ${from}`,
      `l.created_at < ${to}`,
      ...scopeCondition(request.clusters, params),
    ];
    // One scan of the creation index (it includes the status and the cluster), three groupings of it.
    const { rows } = await db.query<CountRow>(
      `WITH ranged AS (
         SELECT l.effective_status, l.cluster_id, (l.created_at AT TIME ZONE ${tz})::date AS day
           FROM messaging_leads l ${whereClause(where)}
       )
       SELECT GROUPING(effective_status) AS by_status, GROUPING(cluster_id) AS by_cluster,
              effective_status, cluster_id, to_char(day, 'YYYY-MM-DD') AS day, count(*)::int AS n
         FROM ranged
        GROUP BY GROUPING SETS ((effective_status), (cluster_id), (day))`,
      params.values,
    );
    // The range ends before `to`: its last day is the one of the last microsecond in it.
    const range = await db.query<{ first_day: string; last_day: string }>(
      `SELECT to_char(($1::timestamptz AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS first_day,
              to_char((($2::timestamptz - interval '1 microsecond') AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS last_day`,
      [request.from, request.to, request.tz],
    );
    return grouped(rows, range.rows[0]?.first_day as string, range.rows[0]?.last_day as string);
  },

  /**
   * The summary from the rollup (migrations/messaging/0003 and 0004; ADR 0012): the whole days of the range from
   * the counts plus the deltas not yet compacted, the partial days at its two ends from the leads. An admin's
   * reads the coarse counts (per day and status, per day and cluster), an agent's the (day, cluster, status)
   * counts of its clusters. Null when the rollup cannot answer exactly — its zone is not `tz` (another replica
   * rebuilt it for another zone), or a day boundary at an end of the range is not where the zone's clock reads
   * midnight (a daylight-saving change at midnight) — and the caller then scans.
   */
  async rolledUp(db: Queryable, request: LeadSummaryRequest): Promise<LeadSummaryCounts | null> {
    const days = await wholeDays(db, request);
    if (days === null) return null;
    const params = new SqlParams();
    // Placeholders are added where the text first uses them: a shape without partial days does not use the
    // range's instants, and PostgreSQL refuses a parameter it cannot type.
    const range = lazyPlaceholders(params, {
      from: request.from,
      to: request.to,
      tz: request.tz,
      firstWhole: days.firstWhole,
      afterWhole: days.afterWhole,
      lo: days.lo,
      hi: days.hi,
    });
    const clusters = request.clusters === null ? null : params.add(request.clusters);
    const edges = {
      head: request.from < minDate(request.to, days.lo),
      tail: maxDate(request.from, days.hi) < request.to,
    };
    // One statement, so the counts, the deltas, the leads and the zone are read in one snapshot. Prepared, one
    // name per shape: the summary is asked often, and parsing and planning it cost more than running it
    // (bench/RESULTS.md). A shape without partial days gets a generic plan, planned once per connection.
    const name = `messaging.lead-summary.${clusters === null ? 'all' : 'scoped'}.${edges.head ? 'h' : ''}${edges.tail ? 't' : ''}`;
    const { rows } = await db.query<CountRow & { usable: boolean }>(
      namedStatement(
        name,
        `WITH ${countedRows(range, clusters, edges)}
       SELECT 0 AS by_status, 1 AS by_cluster, effective_status, NULL::uuid AS cluster_id, NULL AS day,
              sum(n)::int AS n, NULL::boolean AS usable
         FROM by_day_and_status GROUP BY effective_status HAVING sum(n) <> 0
       UNION ALL
       SELECT 1, 1, NULL, NULL, to_char(day, 'YYYY-MM-DD'), sum(n)::int, NULL
         FROM by_day_and_status GROUP BY day HAVING sum(n) <> 0
       UNION ALL
       SELECT 1, 0, NULL, cluster_id, NULL, sum(n)::int, NULL
         FROM by_cluster GROUP BY cluster_id HAVING sum(n) <> 0
       UNION ALL
       SELECT 2, 2, NULL, NULL, NULL, 0,
              EXISTS (SELECT 1 FROM messaging_lead_summary_zone WHERE time_zone = ${range.tz})`,
      ),
      params.values,
    );
    const marker = rows.find((row) => row.by_status === 2);
    if (!marker?.usable) return null;
    return grouped(
      rows.filter((row) => row !== marker),
      days.firstDay,
      days.lastDay,
    );
  },

  /** The time zone names PostgreSQL knows. */
  async timeZones(db: Queryable): Promise<string[]> {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_timezone_names');
    return rows.map((row) => row.name);
  },
};

/** The whole days of a range in its zone, and the instants they span. */
interface WholeDays {
  /** The range's first and last calendar day (partial or not), `YYYY-MM-DD`. */
  firstDay: string;
  lastDay: string;
  /** Whole days [firstWhole, afterWhole), `YYYY-MM-DD`; none when equal. */
  firstWhole: string;
  afterWhole: string;
  /** The instants the whole days start and end: the partial days are [from, lo) and [hi, to). */
  lo: Date;
  hi: Date;
}

/**
 * The range's whole days in `tz`, computed by PostgreSQL (the zone rules the counts were made with); null when
 * a boundary is not an instant where the zone's day starts (a daylight-saving change at midnight), as the counts
 * could not answer exactly. Reads no table.
 */
async function wholeDays(db: Queryable, { from, to, tz }: LeadSummaryRequest): Promise<WholeDays | null> {
  const { rows } = await db.query<WholeDays & { usable: boolean }>(
    namedStatement(
      'messaging.lead-summary.days',
      `WITH ends AS (
       -- The first whole day starts at or after \`from\`: \`from\`'s own day when it starts that day.
       SELECT CASE WHEN (($1::timestamptz - interval '1 microsecond') AT TIME ZONE $3)::date
                        < ($1::timestamptz AT TIME ZONE $3)::date
                   THEN ($1::timestamptz AT TIME ZONE $3)::date
                   ELSE ($1::timestamptz AT TIME ZONE $3)::date + 1 END AS first_whole,
              ($2::timestamptz AT TIME ZONE $3)::date AS to_day
     ), whole AS (
       SELECT first_whole, greatest(first_whole, to_day) AS after_whole FROM ends
     ), span AS (
       SELECT first_whole, after_whole,
              (first_whole::timestamp AT TIME ZONE $3) AS lo, (after_whole::timestamp AT TIME ZONE $3) AS hi
         FROM whole
     )
     SELECT to_char(($1::timestamptz AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS "firstDay",
            to_char((($2::timestamptz - interval '1 microsecond') AT TIME ZONE $3)::date, 'YYYY-MM-DD') AS "lastDay",
            to_char(first_whole, 'YYYY-MM-DD') AS "firstWhole", to_char(after_whole, 'YYYY-MM-DD') AS "afterWhole",
            lo, hi,
            (lo AT TIME ZONE $3)::date = first_whole
              AND ((lo - interval '1 microsecond') AT TIME ZONE $3)::date < first_whole
              AND (hi AT TIME ZONE $3)::date = after_whole
              AND ((hi - interval '1 microsecond') AT TIME ZONE $3)::date < after_whole
              AND (after_whole = first_whole OR (lo >= $1 AND hi <= $2)) AS usable
       FROM span`,
    ),
    [from, to, tz],
  );
  const days = rows[0];
  return days?.usable ? days : null;
}

/** The placeholders of a summary's range and of its whole days, each added to the statement on first use. */
type RangeParams = Record<'from' | 'to' | 'tz' | 'firstWhole' | 'afterWhole' | 'lo' | 'hi', string>;

function lazyPlaceholders<K extends string>(
  params: SqlParams,
  values: Record<K, unknown>,
): Record<K, string> {
  const placeholders = {} as Record<K, string>;
  for (const key of Object.keys(values) as K[]) {
    let placeholder: string | undefined;
    Object.defineProperty(placeholders, key, {
      enumerable: true,
      get: () => (placeholder ??= params.add(values[key])),
    });
  }
  return placeholders;
}

/**
 * The CTEs `by_day_and_status` (day, effective_status, n) and `by_cluster` (cluster_id, n): every lead of the
 * range in the caller's scope, counted once in each, from `fine` (deltas, the partial days that `edges` says the
 * range has, and for a scoped caller the (day, cluster, status) counts) plus, for an admin, the coarse counts of
 * the whole days. Counts are summed
 * as integers (a day's count fits), which PostgreSQL adds much faster than the numeric a bigint sum makes.
 */
function countedRows(
  range: RangeParams,
  clusters: string | null,
  edges: { head: boolean; tail: boolean },
): string {
  const scope = (alias: string) =>
    clusters === null ? '' : `AND ${alias}.cluster_id = ANY(${clusters}::uuid[])`;
  const wholeDaysOf = (table: string, columns: string, condition = '') =>
    `UNION ALL
         SELECT ${columns} FROM ${table} c
          WHERE c.day >= ${range.firstWhole}::date AND c.day < ${range.afterWhole}::date ${condition}`;
  const admin = clusters === null;
  const leadsBetween = (start: string, end: string) =>
    `UNION ALL
         SELECT (l.created_at AT TIME ZONE ${range.tz})::date, l.cluster_id, l.effective_status, 1
           FROM messaging_leads l
          WHERE l.created_at >= ${start} AND l.created_at < ${end} ${scope('l')}`;
  return `fine AS (
         SELECT d.day, d.cluster_id, d.effective_status, d.n::int AS n FROM messaging_lead_count_deltas d
          WHERE d.day >= ${range.firstWhole}::date AND d.day < ${range.afterWhole}::date ${scope('d')}
         ${edges.head ? leadsBetween(range.from, `least(${range.to}, ${range.lo}::timestamptz)`) : ''}
         ${edges.tail ? leadsBetween(`greatest(${range.from}, ${range.hi}::timestamptz)`, range.to) : ''}
         ${admin ? '' : wholeDaysOf('messaging_lead_counts', 'c.day, c.cluster_id, c.effective_status, c.n::int', scope('c'))}
       ), by_day_and_status AS (
         SELECT day, effective_status, n FROM fine
         ${admin ? wholeDaysOf('messaging_lead_counts_by_status', 'c.day, c.effective_status, c.n::int') : ''}
       ), by_cluster AS (
         SELECT cluster_id, n FROM fine
         ${admin ? wholeDaysOf('messaging_lead_counts_by_cluster', 'c.cluster_id, c.n::int') : ''}
       )`;
}

const minDate = (a: Date, b: Date): Date => (a < b ? a : b);
const maxDate = (a: Date, b: Date): Date => (a > b ? a : b);
