-- The staff dashboard's API (plugins/messaging/README.md, "Staff API"): the inbox state of a conversation
-- (status, who holds it, the bot/human handoff, unread messages, last activity and search), agent replies
-- and their idempotency keys, leads the staff edit (status override, notes, version for If-Match, source,
-- the cluster that scopes them, status history), and staff feedback on the bot's replies.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The lead status rule, the one place it is written in SQL: the capture upsert and the staff patch both
-- recompute `status` with it (src/domain/lead.ts holds the same rule for deciding escalations; a test keeps
-- them equal).
CREATE FUNCTION messaging_lead_status(name text, email text, phone text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN name IS NULL OR email IS NULL THEN 'incomplete'
              WHEN phone IS NULL THEN 'captured' ELSE 'qualified' END;

-- Conversations: the inbox.
ALTER TABLE messaging_conversations
  ADD COLUMN status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'resolved')),
  -- The staff member holding the conversation (a `sub`, like cluster members).
  ADD COLUMN assigned_to text CHECK (length(assigned_to) BETWEEN 1 AND 200),
  ADD COLUMN assigned_at timestamptz,
  -- The last time an agent replied or took the conversation; the bot stays silent while this is more
  -- recent than MESSAGING_HANDOFF_IDLE_MS. NULL: the bot answers (never held, or handed back).
  ADD COLUMN agent_active_at timestamptz,
  ADD COLUMN resolved_at timestamptz,
  -- Inbound messages processed since an agent last marked the conversation read.
  ADD COLUMN unread_count integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
  -- The inbox's sort key: the last message in either direction (set to created_at on insert).
  ADD COLUMN last_activity_at timestamptz,
  ADD COLUMN last_message_text text,
  -- What the inbox's text search matches (contact name, phone, last message), lower-cased.
  ADD COLUMN search_text text GENERATED ALWAYS AS (
    lower(coalesce(contact_name, '') || ' ' || coalesce(contact_phone, '') || ' '
          || coalesce(left(last_message_text, 500), ''))) STORED;

UPDATE messaging_conversations SET last_activity_at = coalesce(last_inbound_at, created_at);
ALTER TABLE messaging_conversations ALTER COLUMN last_activity_at SET NOT NULL;

-- Every writer of conversations (the webhook's ingest, tools, seeds) gets a sort key without naming it.
CREATE FUNCTION messaging_conversation_defaults() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.last_activity_at := coalesce(NEW.last_activity_at, NEW.created_at);
  RETURN NEW;
END $$;
CREATE TRIGGER messaging_conversations_defaults
  BEFORE INSERT ON messaging_conversations
  FOR EACH ROW EXECUTE FUNCTION messaging_conversation_defaults();

-- The inbox's orders and filters; each is a keyset walk (last_activity_at, id) descending.
DROP INDEX messaging_conversations_cluster_idx;
CREATE INDEX messaging_conversations_activity_idx ON messaging_conversations (last_activity_at DESC, id DESC);
CREATE INDEX messaging_conversations_cluster_activity_idx
  ON messaging_conversations (cluster_id, last_activity_at DESC, id DESC);
CREATE INDEX messaging_conversations_assignee_idx
  ON messaging_conversations (assigned_to, last_activity_at DESC, id DESC) WHERE assigned_to IS NOT NULL;
CREATE INDEX messaging_conversations_search_idx ON messaging_conversations USING gin (search_text gin_trgm_ops);

-- Messages: who wrote an outbound message (NULL: the bot).
ALTER TABLE messaging_messages
  ADD COLUMN author_user_id text CHECK (length(author_user_id) BETWEEN 1 AND 200),
  ADD CONSTRAINT messaging_messages_author_outbound CHECK (author_user_id IS NULL OR direction = 'outbound');

-- Agent replies sent with an Idempotency-Key: the key names the reply it created, so a retried or doubled
-- request sends once. Keyed per staff member; a key is remembered for 24 hours.
CREATE TABLE messaging_reply_requests (
  user_id text NOT NULL,
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  conversation_id uuid NOT NULL,
  -- SHA-256 of the conversation and the text: the same key with another request is refused.
  request_hash text NOT NULL,
  message_id uuid NOT NULL REFERENCES messaging_messages (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, idempotency_key)
);
CREATE INDEX messaging_reply_requests_age_idx ON messaging_reply_requests (created_at);

-- Leads: staff edits, scoping and history.
ALTER TABLE messaging_leads
  -- A lead created by staff (`source = 'manual'`) may have no conversation.
  ALTER COLUMN conversation_id DROP NOT NULL,
  ADD COLUMN source text NOT NULL DEFAULT 'whatsapp' CHECK (source IN ('whatsapp', 'manual')),
  -- The cluster that scopes who may see the lead: its conversation's (kept in step by the trigger below),
  -- or the one staff chose for a manual lead.
  ADD COLUMN cluster_id uuid REFERENCES messaging_clusters (id) ON DELETE SET NULL,
  -- A status staff set by hand; it wins over `status` (which the fields still recompute) until cleared.
  ADD COLUMN status_override text
    CHECK (status_override IN ('incomplete', 'captured', 'qualified', 'contacted', 'converted', 'disqualified')),
  ADD COLUMN notes text CHECK (length(notes) <= 10000),
  -- Bumped by every update (trigger below): the ETag of the lead.
  ADD COLUMN version integer NOT NULL DEFAULT 1,
  ADD COLUMN effective_status text GENERATED ALWAYS AS (coalesce(status_override, status)) STORED,
  ADD COLUMN search_text text GENERATED ALWAYS AS (
    lower(coalesce(name, '') || ' ' || coalesce(email, '') || ' ' || coalesce(phone, ''))) STORED,
  ADD CONSTRAINT messaging_leads_origin CHECK (conversation_id IS NOT NULL OR source = 'manual');

UPDATE messaging_leads l SET cluster_id = c.cluster_id
  FROM messaging_conversations c WHERE c.id = l.conversation_id;

CREATE FUNCTION messaging_lead_before_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.cluster_id IS NULL AND NEW.conversation_id IS NOT NULL THEN
      NEW.cluster_id := (SELECT cluster_id FROM messaging_conversations WHERE id = NEW.conversation_id);
    END IF;
  ELSE
    NEW.version := OLD.version + 1;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER messaging_leads_before_write
  BEFORE INSERT OR UPDATE ON messaging_leads
  FOR EACH ROW EXECUTE FUNCTION messaging_lead_before_write();

CREATE FUNCTION messaging_conversation_cluster_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE messaging_leads SET cluster_id = NEW.cluster_id, updated_at = greatest(updated_at, NEW.updated_at)
   WHERE conversation_id = NEW.id AND cluster_id IS DISTINCT FROM NEW.cluster_id;
  RETURN NULL;
END $$;
CREATE TRIGGER messaging_conversations_cluster_moved
  AFTER UPDATE OF cluster_id ON messaging_conversations
  FOR EACH ROW WHEN (OLD.cluster_id IS DISTINCT FROM NEW.cluster_id)
  EXECUTE FUNCTION messaging_conversation_cluster_moved();

-- Every change of a lead's effective status, whoever made it: the capture upsert (changed_by NULL) or a
-- staff member (the `messaging.actor` setting of the writing transaction).
CREATE TABLE messaging_lead_status_history (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  lead_id uuid NOT NULL REFERENCES messaging_leads (id) ON DELETE CASCADE,
  status text NOT NULL,
  computed_status text NOT NULL,
  status_override text,
  changed_by text,
  changed_at timestamptz NOT NULL
);
CREATE INDEX messaging_lead_status_history_lead_idx ON messaging_lead_status_history (lead_id, id);

CREATE FUNCTION messaging_lead_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO messaging_lead_status_history (lead_id, status, computed_status, status_override, changed_by, changed_at)
  VALUES (NEW.id, NEW.effective_status, NEW.status, NEW.status_override,
          nullif(current_setting('messaging.actor', true), ''), NEW.updated_at);
  RETURN NULL;
END $$;
CREATE TRIGGER messaging_leads_status_history_insert
  AFTER INSERT ON messaging_leads
  FOR EACH ROW EXECUTE FUNCTION messaging_lead_status_changed();
CREATE TRIGGER messaging_leads_status_history_update
  AFTER UPDATE ON messaging_leads
  FOR EACH ROW WHEN (OLD.effective_status IS DISTINCT FROM NEW.effective_status)
  EXECUTE FUNCTION messaging_lead_status_changed();

INSERT INTO messaging_lead_status_history (lead_id, status, computed_status, changed_at)
SELECT id, status, status, updated_at FROM messaging_leads;

-- The leads v2 orders and filters (keyset walks over (created_at, id) or (updated_at, id)), the summary's
-- index-only scan over a creation range, and the text search.
DROP INDEX messaging_leads_status_idx;
CREATE INDEX messaging_leads_created_idx ON messaging_leads (created_at DESC, id DESC)
  INCLUDE (effective_status, cluster_id);
CREATE INDEX messaging_leads_updated_idx ON messaging_leads (updated_at DESC, id DESC);
-- With the status beside the key, an agent's summary is an index-only scan of their clusters' range instead of
-- a scan of every cluster's (bench/RESULTS.md, "staff API").
CREATE INDEX messaging_leads_cluster_created_idx ON messaging_leads (cluster_id, created_at DESC, id DESC)
  INCLUDE (effective_status);
CREATE INDEX messaging_leads_status_created_idx ON messaging_leads (effective_status, created_at DESC, id DESC);
CREATE INDEX messaging_leads_search_idx ON messaging_leads USING gin (search_text gin_trgm_ops);

-- Staff feedback on the bot's replies: one current feedback per (message, staff member).
CREATE TABLE messaging_message_feedback (
  message_id uuid NOT NULL REFERENCES messaging_messages (id) ON DELETE CASCADE,
  user_id text NOT NULL CHECK (length(user_id) BETWEEN 1 AND 200),
  rating text CHECK (rating IN ('up', 'down')),
  -- The intent the inbound message should have been classified as (an id of data/intents.v1.json).
  corrected_intent text CHECK (length(corrected_intent) BETWEEN 1 AND 100),
  -- The answer the bot should have given.
  corrected_answer text CHECK (length(corrected_answer) BETWEEN 1 AND 4096),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (message_id, user_id),
  CHECK (rating IS NOT NULL OR corrected_intent IS NOT NULL OR corrected_answer IS NOT NULL)
);
-- The review list walks it newest first by creation: an update of a row must not move it past a page cursor.
CREATE INDEX messaging_message_feedback_created_idx ON messaging_message_feedback (created_at, message_id, user_id);
