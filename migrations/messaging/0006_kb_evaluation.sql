-- KB evaluation and gaps (plugins/messaging/README.md, "Knowledge base", "Evaluation" and "Gaps"): the evaluation set, the runs
-- of it against the knowledge base, and the gap candidates grouped by their normal form.

-- The evaluation set. An item expects documents, an intent, or both. `seed_key` makes seeding repeatable: the
-- gold set's text or the corrected message, so a second seed adds only what is new.
CREATE TABLE messaging_kb_eval_items (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  question text NOT NULL CHECK (length(question) BETWEEN 1 AND 1000),
  language text NOT NULL CHECK (language IN ('id', 'en')),
  expected_document_ids uuid[] NOT NULL DEFAULT '{}' CHECK (cardinality(expected_document_ids) <= 10),
  expected_intent text CHECK (length(expected_intent) BETWEEN 1 AND 100),
  origin text NOT NULL CHECK (origin IN ('gold', 'correction', 'manual')),
  held_out boolean NOT NULL DEFAULT false,
  seed_key text UNIQUE CHECK (length(seed_key) <= 1100),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (cardinality(expected_document_ids) > 0 OR expected_intent IS NOT NULL)
);
CREATE INDEX messaging_kb_eval_items_list ON messaging_kb_eval_items (created_at DESC, id DESC);

-- A run: the figures (overall, per language, held-out part) against the KB version it ran on.
CREATE TABLE messaging_kb_eval_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kb_version bigint NOT NULL,
  threshold real NOT NULL,
  item_count integer NOT NULL,
  metrics jsonb NOT NULL,
  created_by text NOT NULL CHECK (length(created_by) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);
CREATE INDEX messaging_kb_eval_runs_list ON messaging_kb_eval_runs (created_at DESC, id DESC);

-- Gap groups: one per normal form. Closed when retrieval finds a published document answering the key.
-- `checked_kb_version`: the KB version the key was last searched at (null: never, or reopened since).
CREATE TABLE messaging_kb_gap_groups (
  key text PRIMARY KEY CHECK (length(key) BETWEEN 1 AND 500),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
  candidate_count integer NOT NULL DEFAULT 0,
  first_seen_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  closed_at timestamptz,
  closed_by_document_id uuid,
  closed_kb_version bigint,
  checked_kb_version bigint
);
CREATE INDEX messaging_kb_gap_groups_open ON messaging_kb_gap_groups (candidate_count DESC, key)
  WHERE status = 'open';
CREATE INDEX messaging_kb_gap_groups_count ON messaging_kb_gap_groups (candidate_count DESC, key);

-- Gap candidates: one per (kind, reference): an inbound message for `fallback`/`no_kb_answer`, a feedback row
-- (message and staff member) for `thumbs_down`/`correction`. `key` is null when the text has no words: it
-- is recorded so the pass never reads it again, and belongs to no group.
CREATE TABLE messaging_kb_gap_candidates (
  kind text NOT NULL CHECK (kind IN ('fallback', 'no_kb_answer', 'thumbs_down', 'correction')),
  ref text NOT NULL CHECK (length(ref) BETWEEN 1 AND 300),
  key text,
  message_id uuid NOT NULL,
  text text NOT NULL,
  seen_at timestamptz NOT NULL,
  PRIMARY KEY (kind, ref)
);
CREATE INDEX messaging_kb_gap_candidates_key ON messaging_kb_gap_candidates (key, seen_at DESC)
  WHERE key IS NOT NULL;
-- Each kind's newest candidate is where the pass resumes reading its source.
CREATE INDEX messaging_kb_gap_candidates_kind ON messaging_kb_gap_candidates (kind, seen_at DESC);

-- The sources the gap pass reads from where it stopped: default-tier messages by when they were classified (a
-- small share of all messages), feedback by its last change (a thumbs-down or correction may come later).
CREATE INDEX messaging_messages_default_tier_idx ON messaging_messages (processed_at)
  WHERE direction = 'inbound' AND tier = 4;
CREATE INDEX messaging_message_feedback_updated_idx ON messaging_message_feedback (updated_at);
