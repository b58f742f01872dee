import type { Database, Queryable } from '../../../../gateway/src/plugin-api.ts';

/** The transaction-scoped advisory lock compactions take one at a time: 'mlc', messaging lead counts. */
const COMPACTION_LOCK = 0x6d6c63;

/**
 * The leads summary's rollup tables (migrations/messaging/0003_lead_summary_counts.sql; ADR 0012): folding
 * the triggers' deltas into the counts, and recounting everything for another zone.
 */
export const leadCountStore = {
  /**
   * Folds up to `limit` deltas into the counts in one statement; returns how many it folded. A delta is folded
   * once: it is deleted by the statement that adds it. Compactions of several replicas take turns: the
   * statement first takes a transaction-scoped advisory lock, because the coarse counts' triggers upsert in two
   * passes (rows inserted, rows updated) that two compactions at once could interleave into a deadlock. `SKIP
   * LOCKED` remains for a replica of an older version, which compacts without the lock.
   */
  async compact(db: Queryable, limit: number): Promise<number> {
    const { rows } = await db.query<{ folded: number }>(
      `WITH gone AS (
         DELETE FROM messaging_lead_count_deltas
          WHERE id = ANY(ARRAY(SELECT id FROM messaging_lead_count_deltas
                                WHERE (SELECT true FROM pg_advisory_xact_lock($2))
                                ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED))
         RETURNING day, cluster_id, effective_status, n
       ), summed AS (
         SELECT day, cluster_id, effective_status, sum(n)::bigint AS n, count(*) AS folded
           FROM gone GROUP BY day, cluster_id, effective_status
       ), upserted AS (
         INSERT INTO messaging_lead_counts AS c (day, cluster_id, effective_status, n)
         SELECT day, cluster_id, effective_status, n FROM summed
          ORDER BY day, cluster_id, effective_status
         ON CONFLICT ON CONSTRAINT messaging_lead_counts_key DO UPDATE SET n = c.n + EXCLUDED.n
       )
       SELECT coalesce(sum(folded), 0)::int AS folded FROM summed`,
      [limit, COMPACTION_LOCK],
    );
    return rows[0]?.folded ?? 0;
  },

  /** The zone the counts are kept in. */
  async zone(db: Queryable): Promise<string> {
    const { rows } = await db.query<{ time_zone: string }>(
      'SELECT time_zone FROM messaging_lead_summary_zone',
    );
    return rows[0]?.time_zone as string;
  },

  /** Whether PostgreSQL knows the zone by this exact name (the summary's `tz` is checked the same way). */
  async zoneKnown(db: Queryable, zone: string): Promise<boolean> {
    const { rows } = await db.query<{ known: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known',
      [zone],
    );
    return rows[0]?.known === true;
  },

  /**
   * Counts every lead again in `zone`, in one transaction, unless the counts already are in it; returns the
   * number of count rows written, or null when nothing was to do. Lead writers wait meanwhile (their
   * triggers must not write a delta of the old zone after the recount), compactions too, readers do not.
   */
  async recount(db: Database, zone: string): Promise<number | null> {
    return db.transaction(async (client) => {
      await client.query('LOCK TABLE messaging_leads IN SHARE ROW EXCLUSIVE MODE');
      await client.query(
        'LOCK TABLE messaging_lead_counts, messaging_lead_count_deltas, messaging_lead_summary_zone IN EXCLUSIVE MODE',
      );
      // Read under the locks: two replicas booting with the new zone recount once.
      if ((await leadCountStore.zone(client)) === zone) return null;
      await client.query('UPDATE messaging_lead_summary_zone SET time_zone = $1', [zone]);
      await client.query('DELETE FROM messaging_lead_count_deltas');
      await client.query('DELETE FROM messaging_lead_counts');
      const { rowCount } = await client.query(
        `INSERT INTO messaging_lead_counts (day, cluster_id, effective_status, n)
         SELECT (created_at AT TIME ZONE $1)::date, cluster_id, effective_status, count(*)
           FROM messaging_leads GROUP BY 1, 2, 3`,
        [zone],
      );
      return rowCount ?? 0;
    });
  },
};
