-- The staff API's state reaches the dashboards (plugins/realtime/README.md, "Events"): a conversation's inbox
-- state (status, who holds it, whether the bot is held off) and a lead's staff fields (status override,
-- source, its own cluster, which scopes a lead without a conversation).

CREATE OR REPLACE FUNCTION realtime_conversation_payload(c messaging_conversations) RETURNS jsonb LANGUAGE sql STABLE
  RETURN jsonb_build_object(
    'conversationId', c.id,
    'clusterId', c.cluster_id,
    'phoneNumberId', c.phone_number_id,
    'contactPhone', c.contact_phone,
    'contactUserId', c.contact_user_id,
    'contactName', c.contact_name,
    'language', c.language,
    'captureState', c.capture ->> 'state',
    'status', c.status,
    'assignedTo', c.assigned_to,
    'agentActiveAt', realtime_utc(c.agent_active_at),
    'createdAt', realtime_utc(c.created_at),
    'updatedAt', realtime_utc(c.updated_at)
  );

DROP TRIGGER messaging_conversations_realtime_update ON messaging_conversations;
CREATE TRIGGER messaging_conversations_realtime_update
  AFTER UPDATE OF cluster_id, contact_name, language, capture, status, assigned_to, agent_active_at
  ON messaging_conversations
  FOR EACH ROW
  WHEN (OLD.cluster_id IS DISTINCT FROM NEW.cluster_id
     OR OLD.contact_name IS DISTINCT FROM NEW.contact_name
     OR OLD.language IS DISTINCT FROM NEW.language
     OR OLD.capture ->> 'state' IS DISTINCT FROM NEW.capture ->> 'state'
     OR OLD.status IS DISTINCT FROM NEW.status
     OR OLD.assigned_to IS DISTINCT FROM NEW.assigned_to
     OR (OLD.agent_active_at IS NULL) IS DISTINCT FROM (NEW.agent_active_at IS NULL))
  EXECUTE FUNCTION notify_conversation_event();

-- Leads go to their own cluster's room (a manual lead has no conversation), with the effective status.
CREATE OR REPLACE FUNCTION notify_lead_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM realtime_emit(
    'lead.upserted',
    realtime_conversation_rooms(NEW.conversation_id, NEW.cluster_id) || ARRAY['global:leads'],
    jsonb_build_object(
      'leadId', NEW.id,
      'conversationId', NEW.conversation_id,
      'clusterId', NEW.cluster_id,
      'source', NEW.source,
      'name', NEW.name,
      'email', NEW.email,
      'phone', NEW.phone,
      'status', NEW.effective_status,
      'computedStatus', NEW.status,
      'statusOverride', NEW.status_override,
      'version', NEW.version,
      'createdAt', realtime_utc(NEW.created_at),
      'updatedAt', realtime_utc(NEW.updated_at),
      'capturedAt', realtime_utc(NEW.captured_at)
    ));
  RETURN NULL;
END $$;
