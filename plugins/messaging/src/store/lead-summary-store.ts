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
   * The summary from the rollup (migrations/messaging/0003_lead_summary_counts.sql; ADR 0012), in one
   * statement so that every part of it reads one snapshot: the whole days of the range from the counts plus
   * the deltas not yet compacted, the partial days at its two ends from the leads. Null when the rollup
   * cannot answer exactly: its zone is not `tz` (another replica rebuilt it for another zone), or a day
   * boundary at an end of the range is not where the zone's clock reads midnight (a daylight-saving
   * change at midnight) — the caller then scans.
   */
  async rolledUp(db: Queryable, request: LeadSummaryRequest): Promise<LeadSummaryCounts | null> {
    const params = new SqlParams();
    const from = params.add(request.from);
    const to = params.add(request.to);
    const tz = params.add(request.tz);
    const clusters = request.clusters === null ? null : params.add(request.clusters);
    const scope = (alias: string) =>
      clusters === null ? '' : `AND ${alias}.cluster_id = ANY(${clusters}::uuid[])`;
    const { rows } = await db.query<CountRow & { usable: boolean; first_day: string; last_day: string }>(
      `WITH ends AS (
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
         -- The boundaries must be the instants the zone's days start, and the whole days inside the range.
         SELECT span.*, (
                  EXISTS (SELECT 1 FROM messaging_lead_summary_zone WHERE time_zone = ${tz})
                  AND (lo AT TIME ZONE ${tz})::date = first_whole
                  AND ((lo - interval '1 microsecond') AT TIME ZONE ${tz})::date < first_whole
                  AND (hi AT TIME ZONE ${tz})::date = after_whole
                  AND ((hi - interval '1 microsecond') AT TIME ZONE ${tz})::date < after_whole
                  AND (after_whole = first_whole OR (lo >= ${from} AND hi <= ${to}))
                ) AS usable
           FROM span
       ), counted AS (
         SELECT c.day, c.cluster_id, c.effective_status, c.n FROM messaging_lead_counts c, checked k
          WHERE k.usable AND c.day >= k.first_whole AND c.day < k.after_whole ${scope('c')}
         UNION ALL
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
       )
       SELECT GROUPING(effective_status) AS by_status, GROUPING(cluster_id) AS by_cluster,
              effective_status, cluster_id, to_char(day, 'YYYY-MM-DD') AS day, sum(n)::int AS n,
              NULL::boolean AS usable, NULL AS first_day, NULL AS last_day
         FROM counted
        GROUP BY GROUPING SETS ((effective_status), (cluster_id), (day))
       HAVING sum(n) <> 0
       UNION ALL
       SELECT 2, 2, NULL, NULL, NULL, 0, usable,
              to_char((${from}::timestamptz AT TIME ZONE ${tz})::date, 'YYYY-MM-DD'),
              to_char(((${to}::timestamptz - interval '1 microsecond') AT TIME ZONE ${tz})::date, 'YYYY-MM-DD')
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
