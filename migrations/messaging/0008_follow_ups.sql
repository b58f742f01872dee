-- Follow-ups (plugins/messaging/README.md, "Follow-ups"): rules an admin keeps, and the queue of follow-ups
-- scheduled from them (or triggered by an agent), sent through the outbox inside WhatsApp's 24-hour
-- customer-service window (free-form text) or outside it (an approved template only).

CREATE TABLE messaging_follow_up_rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- lead_incomplete: the lead is still incomplete `delay_hours` after the contact's last message.
  -- no_reply: the contact has not written `delay_hours` after the last reply to them.
  kind text NOT NULL CHECK (kind IN ('lead_incomplete', 'no_reply')),
  delay_hours integer NOT NULL CHECK (delay_hours BETWEEN 1 AND 720),
  text text CHECK (length(text) BETWEEN 1 AND 4096),
  template_name text CHECK (length(template_name) BETWEEN 1 AND 512),
  template_language text CHECK (length(template_language) BETWEEN 2 AND 15),
  template_parameters text[] NOT NULL DEFAULT '{}' CHECK (cardinality(template_parameters) <= 20),
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (text IS NOT NULL OR template_name IS NOT NULL),
  CHECK ((template_name IS NULL) = (template_language IS NULL))
);

-- The queue. A follow-up keeps its own copy of what it sends (the rule's at scheduling time, or the agent's
-- for a manual one), so the queue shows exactly what went out.
CREATE TABLE messaging_follow_ups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  conversation_id uuid NOT NULL REFERENCES messaging_conversations (id) ON DELETE CASCADE,
  -- NULL for a manual follow-up, and for one whose rule was deleted (its pending ones are cancelled first).
  rule_id uuid REFERENCES messaging_follow_up_rules (id) ON DELETE SET NULL,
  manual boolean NOT NULL DEFAULT false,
  -- A manual follow-up's author (a staff `sub`).
  requested_by text CHECK (length(requested_by) BETWEEN 1 AND 200),
  -- The moment the rule counts from (the contact's last message, or the last reply to them): a rule fires
  -- once per basis, whatever happens to that follow-up.
  basis_at timestamptz NOT NULL,
  due_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN
    ('pending', 'sent', 'cancelled', 'skipped_outside_window', 'failed_reengagement', 'failed')),
  text text CHECK (length(text) BETWEEN 1 AND 4096),
  template_name text CHECK (length(template_name) BETWEEN 1 AND 512),
  template_language text CHECK (length(template_language) BETWEEN 2 AND 15),
  template_parameters text[] NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  last_error text CHECK (length(last_error) <= 1000),
  -- The outbox message that carries it (set when it is queued for sending).
  message_id uuid REFERENCES messaging_messages (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (text IS NOT NULL OR template_name IS NOT NULL),
  CHECK (NOT manual OR rule_id IS NULL)
);
-- At most one pending follow-up per conversation and rule, and one pending manual one per conversation.
CREATE UNIQUE INDEX messaging_follow_ups_pending_rule_idx ON messaging_follow_ups (conversation_id, rule_id)
  WHERE status = 'pending' AND NOT manual;
CREATE UNIQUE INDEX messaging_follow_ups_pending_manual_idx ON messaging_follow_ups (conversation_id)
  WHERE status = 'pending' AND manual;
-- A rule fires once per basis.
CREATE UNIQUE INDEX messaging_follow_ups_basis_idx ON messaging_follow_ups (rule_id, conversation_id, basis_at)
  WHERE NOT manual;
-- The send pass: pending ones by due time.
CREATE INDEX messaging_follow_ups_due_idx ON messaging_follow_ups (due_at) WHERE status = 'pending';
-- The queue list, newest due first, and a conversation's follow-ups.
CREATE INDEX messaging_follow_ups_list_idx ON messaging_follow_ups (due_at DESC, id DESC);
CREATE INDEX messaging_follow_ups_conversation_idx ON messaging_follow_ups (conversation_id, due_at DESC, id DESC);
-- What a contact's message cancels.
CREATE INDEX messaging_follow_ups_pending_idx ON messaging_follow_ups (conversation_id) WHERE status = 'pending';
CREATE INDEX messaging_follow_ups_message_idx ON messaging_follow_ups (message_id) WHERE message_id IS NOT NULL;
