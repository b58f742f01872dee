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

/** The summary's aggregates (README, "Staff API", "Leads"), limited to the caller's clusters. */
export const leadSummaryStore = {
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
      firstDay: range.rows[0]?.first_day as string,
      lastDay: range.rows[0]?.last_day as string,
    };
  },

  /** The time zone names PostgreSQL knows. */
  async timeZones(db: Queryable): Promise<string[]> {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_timezone_names');
    return rows.map((row) => row.name);
  },
};
