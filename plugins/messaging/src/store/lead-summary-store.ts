import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
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
   * The summary from the rollup (migrations/messaging/0003 and 0004; ADR 0012), in one statement so that every
   * part of it reads one snapshot: the whole days of the range from the counts plus the deltas not yet
   * compacted, the partial days at its two ends from the leads. An admin's reads the coarse counts (per day and
   * status, per day and cluster), an agent's the (day, cluster, status) counts of its clusters. Null when the
   * rollup cannot answer exactly: its zone is not `tz` (another replica rebuilt it for another zone), or a day
   * boundary at an end of the range is not where the zone's clock reads midnight (a daylight-saving change at
   * midnight) — the caller then scans.
   */
  async rolledUp(db: Queryable, request: LeadSummaryRequest): Promise<LeadSummaryCounts | null> {
    const params = new SqlParams();
    const range = {
      from: params.add(request.from),
      to: params.add(request.to),
      tz: params.add(request.tz),
    };
    const clusters = request.clusters === null ? null : params.add(request.clusters);
    const { rows } = await db.query<CountRow & { usable: boolean; first_day: string; last_day: string }>(
      `WITH ${wholeDaysOf(range)}, ${countedRows(range, clusters)}
       SELECT 0 AS by_status, 1 AS by_cluster, effective_status, NULL::uuid AS cluster_id, NULL AS day,
              sum(n)::int AS n, NULL::boolean AS usable, NULL AS first_day, NULL AS last_day
         FROM by_day_and_status GROUP BY effective_status HAVING sum(n) <> 0
       UNION ALL
       SELECT 1, 1, NULL, NULL, to_char(day, 'YYYY-MM-DD'), sum(n)::int, NULL, NULL, NULL
         FROM by_day_and_status GROUP BY day HAVING sum(n) <> 0
       UNION ALL
       SELECT 1, 0, NULL, cluster_id, NULL, sum(n)::int, NULL, NULL, NULL
         FROM by_cluster GROUP BY cluster_id HAVING sum(n) <> 0
       UNION ALL
       SELECT 2, 2, NULL, NULL, NULL, 0, usable,
              to_char((${range.from}::timestamptz AT TIME ZONE ${range.tz})::date, 'YYYY-MM-DD'),
              to_char(((${range.to}::timestamptz - interval '1 microsecond') AT TIME ZONE ${range.tz})::date,
                      'YYYY-MM-DD')
         FROM checked`,
      params.values,
    );
    const marker = rows.find((row) => row.by_status === 2);
    if (!marker?.usable) return null;
    return grouped(
      rows.filter((row) => row !== marker),
      marker.first_day,
      marker.last_day,
    );
  },

  /** The time zone names PostgreSQL knows. */
  async timeZones(db: Queryable): Promise<string[]> {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_timezone_names');
    return rows.map((row) => row.name);
  },
};

/** The placeholders of a summary's range: `from`, `to` and the zone. */
interface RangeParams {
  from: string;
  to: string;
  tz: string;
}

/**
 * The CTE `checked`: the range's whole days [first_whole, after_whole), the instants `lo` and `hi` they start
 * and end at, and `usable`: whether the counts can answer (their zone is `tz`, and `lo` and `hi` are instants
 * the zone's days start at, inside the range).
 */
function wholeDaysOf({ from, to, tz }: RangeParams): string {
  return `ends AS (
         -- The first whole day starts at or after \`from\`: \`from\`'s own day when it starts that day.
         SELECT CASE WHEN ((${from}::timestamptz - interval '1 microsecond') AT TIME ZONE ${tz})::date
                          < (${from}::timestamptz AT TIME ZONE ${tz})::date
                     THEN (${from}::timestamptz AT TIME ZONE ${tz})::date
                     ELSE (${from}::timestamptz AT TIME ZONE ${tz})::date + 1 END AS first_whole,
                (${to}::timestamptz AT TIME ZONE ${tz})::date AS to_day
       ), whole AS (
         -- Whole days [first_whole, after_whole); none when after_whole = first_whole.
         SELECT first_whole, greatest(first_whole, to_day) AS after_whole FROM ends
       ), span AS (
         SELECT first_whole, after_whole,
                (first_whole::timestamp AT TIME ZONE ${tz}) AS lo,
                (after_whole::timestamp AT TIME ZONE ${tz}) AS hi
           FROM whole
       ), checked AS (
         SELECT span.*, (
                  EXISTS (SELECT 1 FROM messaging_lead_summary_zone WHERE time_zone = ${tz})
                  AND (lo AT TIME ZONE ${tz})::date = first_whole
                  AND ((lo - interval '1 microsecond') AT TIME ZONE ${tz})::date < first_whole
                  AND (hi AT TIME ZONE ${tz})::date = after_whole
                  AND ((hi - interval '1 microsecond') AT TIME ZONE ${tz})::date < after_whole
                  AND (after_whole = first_whole OR (lo >= ${from} AND hi <= ${to}))
                ) AS usable
           FROM span
       )`;
}

/**
 * The CTEs `by_day_and_status` (day, effective_status, n) and `by_cluster` (cluster_id, n): every lead of the
 * range in the caller's scope, counted once in each, from `fine` (deltas, partial days, and for a scoped caller
 * the (day, cluster, status) counts) plus, for an admin, the coarse counts of the whole days.
 */
function countedRows({ from, to, tz }: RangeParams, clusters: string | null): string {
  const scope = (alias: string) =>
    clusters === null ? '' : `AND ${alias}.cluster_id = ANY(${clusters}::uuid[])`;
  const wholeDays = (table: string, columns: string, condition = '') =>
    `UNION ALL
         SELECT ${columns} FROM ${table} c, checked k
          WHERE k.usable AND c.day >= k.first_whole AND c.day < k.after_whole ${condition}`;
  const admin = clusters === null;
  return `fine AS (
         SELECT d.day, d.cluster_id, d.effective_status, d.n FROM messaging_lead_count_deltas d, checked k
          WHERE k.usable AND d.day >= k.first_whole AND d.day < k.after_whole ${scope('d')}
         UNION ALL
         SELECT (l.created_at AT TIME ZONE ${tz})::date, l.cluster_id, l.effective_status, 1
           FROM messaging_leads l
          WHERE (SELECT usable FROM checked) AND l.created_at >= ${from}
            AND l.created_at < least(${to}, (SELECT lo FROM checked)) ${scope('l')}
         UNION ALL
         SELECT (l.created_at AT TIME ZONE ${tz})::date, l.cluster_id, l.effective_status, 1
           FROM messaging_leads l
          WHERE (SELECT usable FROM checked) AND l.created_at >= greatest(${from}, (SELECT hi FROM checked))
            AND l.created_at < ${to} ${scope('l')}
         ${admin ? '' : wholeDays('messaging_lead_counts', 'c.day, c.cluster_id, c.effective_status, c.n', scope('c'))}
       ), by_day_and_status AS (
         SELECT day, effective_status, n FROM fine
         ${admin ? wholeDays('messaging_lead_counts_by_status', 'c.day, c.effective_status, c.n') : ''}
       ), by_cluster AS (
         SELECT cluster_id, n FROM fine
         ${admin ? wholeDays('messaging_lead_counts_by_cluster', 'c.cluster_id, c.n') : ''}
       )`;
}
