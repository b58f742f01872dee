-- The FAQ (plugins/messaging/README.md, "FAQ"): entries admins write or a sync imports from an external
-- knowledge service, the conflicts between a local edit and an upstream change, the history of sync runs,
-- and the state the sync and the phrase tier share.

CREATE TABLE messaging_faq_entries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The question variants, each answered by `answer` (1 to 20, each 1 to 500 characters).
  questions text[] NOT NULL CHECK (cardinality(questions) BETWEEN 1 AND 20),
  answer text NOT NULL CHECK (length(answer) BETWEEN 1 AND 4096),
  language text NOT NULL CHECK (language IN ('id', 'en')),
  published boolean NOT NULL DEFAULT false,
  -- The upstream's id of a synced entry; NULL for a local one.
  external_id text UNIQUE CHECK (length(external_id) BETWEEN 1 AND 200),
  origin text NOT NULL CHECK (origin IN ('local', 'synced')),
  -- An admin changed the content since the sync last wrote it: an upstream change becomes a conflict.
  locally_edited boolean NOT NULL DEFAULT false,
  -- The upstream content last seen for this entry (its hash and its `updatedAt`).
  upstream_hash text,
  upstream_updated_at timestamptz,
  archived_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((origin = 'synced') = (external_id IS NOT NULL))
);
CREATE INDEX messaging_faq_entries_list_idx ON messaging_faq_entries (created_at DESC, id DESC);

-- An upstream change of an entry edited locally, kept until an admin chooses which side stays.
CREATE TABLE messaging_faq_conflicts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  entry_id uuid NOT NULL REFERENCES messaging_faq_entries (id),
  -- The upstream item as received: { questions, answer, language, updatedAt }.
  upstream jsonb NOT NULL,
  upstream_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  resolved_at timestamptz,
  resolved_by text CHECK (length(resolved_by) BETWEEN 1 AND 200),
  resolution text CHECK (resolution IN ('local', 'upstream')),
  CHECK ((resolved_at IS NULL) = (resolution IS NULL))
);
-- At most one open conflict per entry: a newer upstream change replaces the open one's snapshot.
CREATE UNIQUE INDEX messaging_faq_conflicts_open_idx ON messaging_faq_conflicts (entry_id) WHERE resolved_at IS NULL;
CREATE INDEX messaging_faq_conflicts_list_idx ON messaging_faq_conflicts (created_at DESC, id DESC);

CREATE TABLE messaging_faq_sync_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  trigger text NOT NULL CHECK (trigger IN ('manual', 'schedule')),
  -- running → succeeded (changes applied), not_modified (304: nothing transferred) or failed.
  status text NOT NULL CHECK (status IN ('running', 'succeeded', 'not_modified', 'failed')),
  etag text,
  created integer NOT NULL DEFAULT 0,
  updated integer NOT NULL DEFAULT 0,
  archived integer NOT NULL DEFAULT 0,
  conflicts integer NOT NULL DEFAULT 0,
  unchanged integer NOT NULL DEFAULT 0,
  error text,
  started_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX messaging_faq_sync_runs_started_idx ON messaging_faq_sync_runs (started_at DESC, id DESC);

-- One row: the ETag of the last upstream list applied, and the version of the published questions, which every
-- change of the entries bumps, so each replica's phrase tier reloads them when it differs (one read per batch).
CREATE TABLE messaging_faq_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  etag text,
  phrases_version bigint NOT NULL DEFAULT 0
);
INSERT INTO messaging_faq_state DEFAULT VALUES;

CREATE FUNCTION messaging_faq_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE messaging_faq_state SET phrases_version = phrases_version + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER messaging_faq_entries_version
  AFTER INSERT OR UPDATE OR DELETE ON messaging_faq_entries
  FOR EACH STATEMENT EXECUTE FUNCTION messaging_faq_bump_version();
