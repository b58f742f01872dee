-- Messaging (plugins/messaging/README.md): conversations, messages (inbound queue and outbound outbox),
-- leads, staff routing and notifications. The realtime plugin's triggers will watch messages,
-- conversations, leads and notifications; follow-ups get their tables when the staff API is built.

-- Staff routing: a conversation belongs to the cluster of the business number it came in on; the users
-- of that cluster and the global recipients are notified. User ids are the staff identities' `sub`
-- (the auth plugin's user ids, or the dashboard's), so they are text and not a foreign key.
CREATE TABLE messaging_clusters (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
  -- The provider's phone_number_id routed to this cluster (NULL: assigned by hand).
  phone_number_id text UNIQUE,
  created_at timestamptz NOT NULL
);

CREATE TABLE messaging_cluster_members (
  cluster_id uuid NOT NULL REFERENCES messaging_clusters (id) ON DELETE CASCADE,
  user_id text NOT NULL CHECK (length(user_id) BETWEEN 1 AND 200),
  PRIMARY KEY (cluster_id, user_id)
);

CREATE TABLE messaging_global_recipients (
  user_id text PRIMARY KEY CHECK (length(user_id) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL
);

-- Keyed by the business number (phone_number_id) and the sender: `from`, or `from_user_id` for a user with
-- a username and no phone number (plugins/messaging/README.md, "How a message flows").
CREATE TABLE messaging_conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  phone_number_id text NOT NULL,
  -- 'wa:<from>' or 'user:<from_user_id>'.
  contact_key text NOT NULL,
  contact_phone text,
  contact_user_id text,
  contact_name text,
  cluster_id uuid REFERENCES messaging_clusters (id) ON DELETE SET NULL,
  language text NOT NULL DEFAULT 'id' CHECK (language IN ('id', 'en')),
  -- The lead-capture session (awaiting_name → awaiting_email → captured, TTL 6 h); its shape is in
  -- plugins/messaging/src/conversation/types.ts.
  capture jsonb NOT NULL,
  default_answers_in_a_row integer NOT NULL DEFAULT 0,
  last_inbound_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (phone_number_id, contact_key),
  CHECK (contact_phone IS NOT NULL OR contact_user_id IS NOT NULL)
);
-- No index on updated_at: the worker updates each conversation per message, and an update that touches no
-- indexed column stays HOT (the staff inbox brings the indexes its queries need).
CREATE INDEX messaging_conversations_cluster_idx ON messaging_conversations (cluster_id);

CREATE TABLE messaging_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Arrival order, the tie-break after the provider timestamp (an identity: unique without an index).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  -- No foreign key on purpose (ADR 0006): its KEY SHARE lock on the conversation row, taken by every
  -- inbound insert, contends with the worker's updates of that row. Messages are only inserted by the
  -- statement that finds or creates their conversation, and conversations are never deleted with messages
  -- left behind (erasure deletes the messages first).
  conversation_id uuid NOT NULL,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  -- Inbound: the provider's id (deduplication). Outbound: set once the send API accepted the message.
  provider_message_id text UNIQUE,
  type text NOT NULL CHECK (length(type) BETWEEN 1 AND 40),
  text text,
  -- Inbound: the provider's message object as received. Outbound: the request sent.
  payload jsonb NOT NULL,
  provider_timestamp timestamptz,
  created_at timestamptz NOT NULL,

  -- Inbound processing (the queue).
  processing_status text CHECK (processing_status IN ('queued', 'processed', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_error text,
  processed_at timestamptz,
  tier smallint CHECK (tier BETWEEN 1 AND 4),
  intent text,
  score real,
  margin real,

  -- Outbound delivery (the outbox).
  delivery_status text CHECK (delivery_status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
  template text,
  in_reply_to uuid REFERENCES messaging_messages (id) ON DELETE SET NULL,
  send_attempts integer NOT NULL DEFAULT 0,
  next_send_at timestamptz,
  delivery_error text,

  CHECK ((direction = 'inbound') = (processing_status IS NOT NULL)),
  CHECK ((direction = 'outbound') = (delivery_status IS NOT NULL)),
  CHECK (direction = 'outbound' OR provider_message_id IS NOT NULL)
);
CREATE INDEX messaging_messages_conversation_idx ON messaging_messages (conversation_id, seq);
-- The queue: inbound messages waiting, per conversation in provider order.
CREATE INDEX messaging_messages_queue_idx ON messaging_messages (conversation_id, provider_timestamp, seq)
  WHERE processing_status = 'queued';
-- The queue's oldest messages first (a processing batch looks at a window of them).
CREATE INDEX messaging_messages_queue_age_idx ON messaging_messages (seq) WHERE processing_status = 'queued';
-- The outbox: replies waiting to be sent, per conversation in order. `next_send_at` is deliberately not
-- indexed: the sender's lease updates it, and an update touching no indexed column stays a cheap HOT update.
CREATE INDEX messaging_messages_outbox_idx ON messaging_messages (conversation_id, seq)
  WHERE delivery_status = 'pending';

-- One lead per conversation; its status is recomputed inside the upsert that writes its fields, so it never
-- contradicts them (plugins/messaging/README.md, "How a message flows").
CREATE TABLE messaging_leads (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  conversation_id uuid NOT NULL UNIQUE REFERENCES messaging_conversations (id) ON DELETE CASCADE,
  name text CHECK (length(name) <= 200),
  email text CHECK (length(email) <= 320),
  phone text CHECK (phone ~ '^62[0-9]{7,13}$'),
  status text NOT NULL CHECK (status IN ('incomplete', 'captured', 'qualified')),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  captured_at timestamptz
);
CREATE INDEX messaging_leads_status_idx ON messaging_leads (status, updated_at DESC);

-- Notifications, deduplicated by the database: two rows for the same (user, event_key) whose 30-second
-- windows overlap cannot both exist, however concurrent the inserts (a unique index over the creation time
-- could not stop two rows a few milliseconds apart). `timestamptz + interval '30 seconds'` does not depend
-- on the time zone, so the wrapper may be declared IMMUTABLE, as an exclusion constraint requires.
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE FUNCTION messaging_dedup_window(at timestamptz) RETURNS tstzrange
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN tstzrange(at, at + interval '30 seconds');

CREATE TABLE messaging_notifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id text NOT NULL,
  event_key text NOT NULL CHECK (length(event_key) BETWEEN 1 AND 300),
  kind text NOT NULL,
  conversation_id uuid REFERENCES messaging_conversations (id) ON DELETE CASCADE,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  read_at timestamptz,
  CONSTRAINT messaging_notifications_dedup
    EXCLUDE USING gist (user_id WITH =, event_key WITH =, messaging_dedup_window(created_at) WITH &&)
);
CREATE INDEX messaging_notifications_user_idx ON messaging_notifications (user_id, created_at DESC);
