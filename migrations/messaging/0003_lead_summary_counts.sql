-- The leads summary's rollup (plugins/messaging/README.md, "Leads"; docs/adr/0012-lead-summary-rollup.md):
-- counts of leads per (day in the summary's zone, cluster, effective status), so a summary over months sums
-- a few thousand counts instead of aggregating every lead of its range.
--
-- Writers never update a shared counter: the lead triggers append signed deltas to an insert-only table, and
-- the plugin's compaction loop folds them into the counts. The summary adds the pending deltas to the counts,
-- so an answer is exact whether or not the compaction has run.

-- The zone the days are counted in (MESSAGING_SUMMARY_TIME_ZONE). One row; the plugin rebuilds the counts at
-- boot when the setting differs from it.
CREATE TABLE messaging_lead_summary_zone (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  time_zone text NOT NULL
);
INSERT INTO messaging_lead_summary_zone (time_zone) VALUES ('UTC');

CREATE TABLE messaging_lead_counts (
  day date NOT NULL,
  cluster_id uuid,
  effective_status text NOT NULL,
  n bigint NOT NULL,
  -- Leads without a cluster are one group, as the summary's byCluster shows them.
  CONSTRAINT messaging_lead_counts_key UNIQUE NULLS NOT DISTINCT (day, cluster_id, effective_status)
);
-- An agent's summary reads its clusters' days only.
CREATE INDEX messaging_lead_counts_cluster_idx ON messaging_lead_counts (cluster_id, day)
  INCLUDE (effective_status, n);

-- Signed changes not yet folded into the counts. Rows are only inserted and deleted (by the compaction).
CREATE TABLE messaging_lead_count_deltas (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  day date NOT NULL,
  cluster_id uuid,
  effective_status text NOT NULL,
  n bigint NOT NULL
);
-- Emptied every few seconds: vacuum it on a number of dead rows, not on a fraction of a tiny table.
ALTER TABLE messaging_lead_count_deltas
  SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000);

-- Statement-level triggers over the transition tables: a bulk insert (COPY, a seed) writes one delta per
-- group rather than per lead, and an UPDATE that moves nothing (a name, notes) writes none. Column lists
-- (UPDATE OF) cannot be used: effective_status is generated, cluster_id may be set by the BEFORE trigger or
-- by the clusters' ON DELETE SET NULL, and transition tables do not combine with column lists anyway.
CREATE FUNCTION messaging_lead_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  zone text := (SELECT time_zone FROM messaging_lead_summary_zone);
BEGIN
  INSERT INTO messaging_lead_count_deltas (day, cluster_id, effective_status, n)
  SELECT (created_at AT TIME ZONE zone)::date, cluster_id, effective_status, count(*)
    FROM new_leads GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  zone text := (SELECT time_zone FROM messaging_lead_summary_zone);
BEGIN
  INSERT INTO messaging_lead_count_deltas (day, cluster_id, effective_status, n)
  SELECT day, cluster_id, effective_status, sum(n)
    FROM (SELECT (created_at AT TIME ZONE zone)::date AS day, cluster_id, effective_status, -1 AS n
            FROM old_leads
          UNION ALL
          SELECT (created_at AT TIME ZONE zone)::date, cluster_id, effective_status, 1 FROM new_leads) AS moved
   GROUP BY 1, 2, 3
  HAVING sum(n) <> 0;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  zone text := (SELECT time_zone FROM messaging_lead_summary_zone);
BEGIN
  INSERT INTO messaging_lead_count_deltas (day, cluster_id, effective_status, n)
  SELECT (created_at AT TIME ZONE zone)::date, cluster_id, effective_status, -count(*)
    FROM old_leads GROUP BY 1, 2, 3;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM messaging_lead_count_deltas;
  DELETE FROM messaging_lead_counts;
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_lead_counts_insert AFTER INSERT ON messaging_leads
  REFERENCING NEW TABLE AS new_leads FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_insert();
CREATE TRIGGER messaging_lead_counts_update AFTER UPDATE ON messaging_leads
  REFERENCING OLD TABLE AS old_leads NEW TABLE AS new_leads
  FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_update();
CREATE TRIGGER messaging_lead_counts_delete AFTER DELETE ON messaging_leads
  REFERENCING OLD TABLE AS old_leads FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_delete();
CREATE TRIGGER messaging_lead_counts_truncate AFTER TRUNCATE ON messaging_leads
  FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_truncate();

-- The existing leads, counted in UTC. The triggers above already hold the table's lock (CREATE TRIGGER takes
-- it), so no lead is written between them and this count.
INSERT INTO messaging_lead_counts (day, cluster_id, effective_status, n)
SELECT (created_at AT TIME ZONE 'UTC')::date, cluster_id, effective_status, count(*)
  FROM messaging_leads GROUP BY 1, 2, 3;
