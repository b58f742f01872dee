-- Realtime delivery (plugins/realtime/README.md; ADR 0009 explains the design). Triggers on messaging's tables
-- append one row per event to realtime_events and announce its id on the channel service_events. The NOTIFY is
-- only a wake-up with the id, type and rooms (far below NOTIFY's 8000-byte limit whatever the payload's size);
-- every replica reads the rows themselves, in id order, and delivers them to its own sockets. The table is
-- also the replay log: a client that reconnects asks for the events after the last id it saw.

CREATE TABLE realtime_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  type text NOT NULL CHECK (type ~ '^[a-z]+\.[a-z_]+$'),
  -- The socket.io rooms the event goes to: a handful, each a prefix and an id (plugins/realtime/README.md).
  rooms text[] NOT NULL CHECK (cardinality(rooms) BETWEEN 1 AND 8),
  payload jsonb NOT NULL,
  -- The trigger's own time (not the transaction's start), so COMMIT-to-delivery latency can be measured.
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Everything before pruned_through has been pruned: a client whose last id is older must resync.
CREATE TABLE realtime_retention (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO realtime_retention DEFAULT VALUES;

-- An event, once written, is what every replica delivered: rows are never changed, only pruned by age.
CREATE FUNCTION realtime_events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'realtime_events rows are never updated' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER realtime_events_immutable
  BEFORE UPDATE ON realtime_events FOR EACH ROW EXECUTE FUNCTION realtime_events_are_immutable();

-- Every timestamp in a payload is UTC, ISO 8601 with milliseconds and a Z, whatever the session's TimeZone.
CREATE FUNCTION realtime_utc(at timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE
  RETURN to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');

-- The rooms of anything that belongs to a conversation: the conversation's, and its cluster's when it has one.
CREATE FUNCTION realtime_conversation_rooms(conversation uuid, cluster uuid) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_remove(ARRAY['conversation:' || conversation, 'cluster:' || cluster], NULL);

-- Appends one event and announces it. The payload travels in the row, never in the NOTIFY.
CREATE FUNCTION realtime_emit(event_type text, event_rooms text[], event_payload jsonb) RETURNS void
  LANGUAGE plpgsql AS $$
DECLARE
  event_id bigint;
BEGIN
  INSERT INTO realtime_events (type, rooms, payload)
  VALUES (event_type, event_rooms, event_payload)
  RETURNING id INTO event_id;
  PERFORM pg_notify('service_events', json_build_object('id', event_id, 'type', event_type, 'rooms', event_rooms)::text);
END $$;

-- Messages: what the dashboard shows of a message (never the provider's raw payload).
CREATE FUNCTION realtime_message_payload(m messaging_messages) RETURNS jsonb LANGUAGE sql STABLE
  RETURN jsonb_build_object(
    'messageId', m.id,
    'conversationId', m.conversation_id,
    'direction', m.direction,
    'type', m.type,
    'text', m.text,
    'processingStatus', m.processing_status,
    'intent', m.intent,
    'deliveryStatus', m.delivery_status,
    'providerTimestamp', realtime_utc(m.provider_timestamp),
    'createdAt', realtime_utc(m.created_at)
  );

-- Inserts arrive in batches (the webhook's ingest, the worker's replies): one statement-level trigger writes
-- the whole batch with one INSERT. Updates that matter to the dashboard (processing, delivery, intent) are few
-- and filtered by the trigger's WHEN, so they use a row-level trigger.
CREATE FUNCTION notify_message_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event record;
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    FOR event IN
      INSERT INTO realtime_events (type, rooms, payload)
      SELECT 'message.created', realtime_conversation_rooms(n.conversation_id, c.cluster_id), realtime_message_payload(n)
        FROM inserted_messages n LEFT JOIN messaging_conversations c ON c.id = n.conversation_id
       ORDER BY n.seq
      RETURNING id, type, rooms
    LOOP
      PERFORM pg_notify('service_events', json_build_object('id', event.id, 'type', event.type, 'rooms', event.rooms)::text);
    END LOOP;
  ELSE
    PERFORM realtime_emit(
      'message.updated',
      realtime_conversation_rooms(NEW.conversation_id,
        (SELECT cluster_id FROM messaging_conversations WHERE id = NEW.conversation_id)),
      realtime_message_payload(NEW));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_messages_realtime_insert
  AFTER INSERT ON messaging_messages REFERENCING NEW TABLE AS inserted_messages
  FOR EACH STATEMENT EXECUTE FUNCTION notify_message_event();
CREATE TRIGGER messaging_messages_realtime_update
  AFTER UPDATE OF processing_status, delivery_status, intent ON messaging_messages
  FOR EACH ROW
  WHEN (OLD.processing_status IS DISTINCT FROM NEW.processing_status
     OR OLD.delivery_status IS DISTINCT FROM NEW.delivery_status
     OR OLD.intent IS DISTINCT FROM NEW.intent)
  EXECUTE FUNCTION notify_message_event();

-- Conversations: who the contact is, where it is routed, where lead capture stands. Not the per-message
-- bookkeeping the worker updates every time (counters, timestamps), which would flood the dashboards.
CREATE FUNCTION realtime_conversation_payload(c messaging_conversations) RETURNS jsonb LANGUAGE sql STABLE
  RETURN jsonb_build_object(
    'conversationId', c.id,
    'clusterId', c.cluster_id,
    'phoneNumberId', c.phone_number_id,
    'contactPhone', c.contact_phone,
    'contactUserId', c.contact_user_id,
    'contactName', c.contact_name,
    'language', c.language,
    'captureState', c.capture ->> 'state',
    'createdAt', realtime_utc(c.created_at),
    'updatedAt', realtime_utc(c.updated_at)
  );

CREATE FUNCTION notify_conversation_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  event record;
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    FOR event IN
      INSERT INTO realtime_events (type, rooms, payload)
      SELECT 'conversation.created', realtime_conversation_rooms(n.id, n.cluster_id), realtime_conversation_payload(n)
        FROM inserted_conversations n
       ORDER BY n.created_at, n.id
      RETURNING id, type, rooms
    LOOP
      PERFORM pg_notify('service_events', json_build_object('id', event.id, 'type', event.type, 'rooms', event.rooms)::text);
    END LOOP;
  ELSE
    -- A conversation moved to another cluster is announced to the cluster it left as well.
    PERFORM realtime_emit(
      'conversation.updated',
      realtime_conversation_rooms(NEW.id, NEW.cluster_id)
        || CASE WHEN OLD.cluster_id IS DISTINCT FROM NEW.cluster_id AND OLD.cluster_id IS NOT NULL
                THEN ARRAY['cluster:' || OLD.cluster_id] ELSE '{}'::text[] END,
      realtime_conversation_payload(NEW));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_conversations_realtime_insert
  AFTER INSERT ON messaging_conversations REFERENCING NEW TABLE AS inserted_conversations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_conversation_event();
CREATE TRIGGER messaging_conversations_realtime_update
  AFTER UPDATE OF cluster_id, contact_name, language, capture ON messaging_conversations
  FOR EACH ROW
  WHEN (OLD.cluster_id IS DISTINCT FROM NEW.cluster_id
     OR OLD.contact_name IS DISTINCT FROM NEW.contact_name
     OR OLD.language IS DISTINCT FROM NEW.language
     OR OLD.capture ->> 'state' IS DISTINCT FROM NEW.capture ->> 'state')
  EXECUTE FUNCTION notify_conversation_event();

-- Leads: every insert or update of the upsert, with the status it recomputed; also to the global lead feed.
CREATE FUNCTION notify_lead_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM realtime_emit(
    'lead.upserted',
    realtime_conversation_rooms(NEW.conversation_id,
      (SELECT cluster_id FROM messaging_conversations WHERE id = NEW.conversation_id)) || ARRAY['global:leads'],
    jsonb_build_object(
      'leadId', NEW.id,
      'conversationId', NEW.conversation_id,
      'name', NEW.name,
      'email', NEW.email,
      'phone', NEW.phone,
      'status', NEW.status,
      'createdAt', realtime_utc(NEW.created_at),
      'updatedAt', realtime_utc(NEW.updated_at),
      'capturedAt', realtime_utc(NEW.captured_at)
    ));
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_leads_realtime
  AFTER INSERT OR UPDATE ON messaging_leads
  FOR EACH ROW EXECUTE FUNCTION notify_lead_event();

-- Notifications: to the one staff member they are for; created, then updated when read.
CREATE FUNCTION notify_notification_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM realtime_emit(
    CASE TG_OP WHEN 'INSERT' THEN 'notification.created' ELSE 'notification.updated' END,
    ARRAY['user:' || NEW.user_id],
    jsonb_build_object(
      'notificationId', NEW.id,
      'userId', NEW.user_id,
      'kind', NEW.kind,
      'eventKey', NEW.event_key,
      'conversationId', NEW.conversation_id,
      'details', NEW.payload,
      'createdAt', realtime_utc(NEW.created_at),
      'readAt', realtime_utc(NEW.read_at)
    ));
  RETURN NULL;
END $$;

CREATE TRIGGER messaging_notifications_realtime_insert
  AFTER INSERT ON messaging_notifications
  FOR EACH ROW EXECUTE FUNCTION notify_notification_event();
CREATE TRIGGER messaging_notifications_realtime_update
  AFTER UPDATE OF read_at ON messaging_notifications
  FOR EACH ROW WHEN (OLD.read_at IS DISTINCT FROM NEW.read_at)
  EXECUTE FUNCTION notify_notification_event();

-- Follow-ups: the queue table does not exist yet; the migration that creates it attaches this function to it
-- (plugins/realtime/README.md, "Events"). It reads the row through to_jsonb so that it only needs the columns
-- id, conversation_id, status and due_at, plus rule_id when there is one.
CREATE FUNCTION notify_followup_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  followup jsonb := to_jsonb(NEW);
  conversation uuid := (followup ->> 'conversation_id')::uuid;
BEGIN
  PERFORM realtime_emit(
    CASE TG_OP WHEN 'INSERT' THEN 'followup.scheduled' ELSE 'followup.updated' END,
    realtime_conversation_rooms(conversation,
      (SELECT cluster_id FROM messaging_conversations WHERE id = conversation)),
    jsonb_build_object(
      'followupId', followup -> 'id',
      'conversationId', conversation,
      'ruleId', followup -> 'rule_id',
      'status', followup -> 'status',
      'dueAt', realtime_utc((followup ->> 'due_at')::timestamptz)
    ));
  RETURN NULL;
END $$;
