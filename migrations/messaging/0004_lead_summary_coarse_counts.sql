-- Coarser counts for the leads summary of every cluster (docs/adr/0012-lead-summary-rollup.md): per (day, effective
-- status) and per (day, cluster). An admin's 90 days then read 540 and 1,800 rows instead of the 11,000 of the
-- (day, cluster, status) counts; an agent's summary still reads those, for its clusters only.
--
-- The coarse counts follow messaging_lead_counts through statement triggers on it, so whatever writes the fine
-- counts (the compaction, a recount for another zone, a replica of an older version still running) keeps them
-- equal to the fine counts' sums, in the same transaction.

CREATE TABLE messaging_lead_counts_by_status (
  day date NOT NULL,
  effective_status text NOT NULL,
  n bigint NOT NULL,
  CONSTRAINT messaging_lead_counts_by_status_key PRIMARY KEY (day, effective_status) INCLUDE (n)
);

CREATE TABLE messaging_lead_counts_by_cluster (
  day date NOT NULL,
  cluster_id uuid,
  n bigint NOT NULL,
  CONSTRAINT messaging_lead_counts_by_cluster_key UNIQUE NULLS NOT DISTINCT (day, cluster_id) INCLUDE (n)
);

-- Adds signed changes of the fine counts (one element per changed group) to both coarse tables, upserting in key
-- order; groups whose changes sum to zero are left alone.
CREATE FUNCTION messaging_lead_counts_roll_up(days date[], clusters uuid[], statuses text[], ns bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO messaging_lead_counts_by_status AS c (day, effective_status, n)
  SELECT day, effective_status, sum(n) FROM unnest(days, statuses, ns) AS x(day, effective_status, n)
   GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT ON CONSTRAINT messaging_lead_counts_by_status_key DO UPDATE SET n = c.n + EXCLUDED.n;
  INSERT INTO messaging_lead_counts_by_cluster AS c (day, cluster_id, n)
  SELECT day, cluster_id, sum(n) FROM unnest(days, clusters, ns) AS x(day, cluster_id, n)
   GROUP BY 1, 2 HAVING sum(n) <> 0 ORDER BY 1, 2
  ON CONFLICT ON CONSTRAINT messaging_lead_counts_by_cluster_key DO UPDATE SET n = c.n + EXCLUDED.n;
END $$;

CREATE FUNCTION messaging_lead_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM messaging_lead_counts_roll_up(array_agg(day), array_agg(cluster_id), array_agg(effective_status),
                                        array_agg(n))
     FROM new_counts;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM messaging_lead_counts_roll_up(array_agg(day), array_agg(cluster_id), array_agg(effective_status),
                                        array_agg(n))
     FROM (SELECT day, cluster_id, effective_status, n FROM new_counts
           UNION ALL
           SELECT day, cluster_id, effective_status, -n FROM old_counts) AS moved;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM messaging_lead_counts_roll_up(array_agg(day), array_agg(cluster_id), array_agg(effective_status),
                                        array_agg(-n))
     FROM old_counts;
  RETURN NULL;
END $$;

CREATE FUNCTION messaging_lead_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM messaging_lead_counts_by_status;
  DELETE FROM messaging_lead_counts_by_cluster;
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_lead_counts_inserted AFTER INSERT ON messaging_lead_counts
  REFERENCING NEW TABLE AS new_counts FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_inserted();
CREATE TRIGGER messaging_lead_counts_updated AFTER UPDATE ON messaging_lead_counts
  REFERENCING OLD TABLE AS old_counts NEW TABLE AS new_counts
  FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_updated();
CREATE TRIGGER messaging_lead_counts_deleted AFTER DELETE ON messaging_lead_counts
  REFERENCING OLD TABLE AS old_counts FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_deleted();
CREATE TRIGGER messaging_lead_counts_truncated AFTER TRUNCATE ON messaging_lead_counts
  FOR EACH STATEMENT EXECUTE FUNCTION messaging_lead_counts_truncated();

-- The coarse counts of the fine counts there are. CREATE TRIGGER above holds a lock on messaging_lead_counts that
-- keeps compactions out until this transaction commits, so none is missed or counted twice.
INSERT INTO messaging_lead_counts_by_status (day, effective_status, n)
SELECT day, effective_status, sum(n) FROM messaging_lead_counts GROUP BY 1, 2;
INSERT INTO messaging_lead_counts_by_cluster (day, cluster_id, n)
SELECT day, cluster_id, sum(n) FROM messaging_lead_counts GROUP BY 1, 2;
