-- Webhook outbox (plugins/kyc/README.md, "Webhooks"). A delivery is inserted in the transaction of the
-- status change it reports, so a rolled-back change sends nothing and a committed one is never lost; the
-- worker of any replica sends it later (plugins/kyc/src/webhooks/dispatcher.ts).
CREATE TABLE kyc_webhook_deliveries (
  -- Chosen by the gateway before the insert: the id is part of the signed body.
  id uuid PRIMARY KEY,
  -- Insertion order, the order deliveries of one verification are sent in (created_at can tie).
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  tenant_id uuid NOT NULL REFERENCES kyc_tenants (id) ON DELETE CASCADE,
  verification_id uuid NOT NULL REFERENCES kyc_verifications (id) ON DELETE CASCADE,
  event_type text NOT NULL,
  -- The serialized JSON body, byte for byte what is signed and sent on every attempt and resend.
  body text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Attempts started, ever (resends included); an attempt's number is reserved when it is claimed.
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- `attempts` when the delivery was last queued (0, or the count at a manual resend): backoff and the
  -- KYC_WEBHOOK_MAX_ATTEMPTS limit count from here.
  queued_at_attempt integer NOT NULL DEFAULT 0 CHECK (queued_at_attempt >= 0),
  -- When the next attempt is due; while an attempt is in flight, the end of its lease.
  next_attempt_at timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  delivered_at timestamptz,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- The worker's question: which pending deliveries are due.
CREATE INDEX kyc_webhook_deliveries_due_idx ON kyc_webhook_deliveries (next_attempt_at)
  WHERE status = 'pending';
-- Per verification in order: the admin listing, and "is an earlier delivery still pending".
CREATE INDEX kyc_webhook_deliveries_verification_idx ON kyc_webhook_deliveries (verification_id, seq);

-- Every attempt: inserted when claimed (outcome still empty), completed when the answer or error is known.
-- An attempt left without outcome and duration is one whose worker stopped mid-flight; its lease expired
-- and the delivery was tried again.
CREATE TABLE kyc_webhook_attempts (
  delivery_id uuid NOT NULL REFERENCES kyc_webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL CHECK (attempt >= 1),
  at timestamptz NOT NULL,
  -- The receiver's HTTP status; NULL when none came (connection refused, timeout, no URL).
  http_status integer,
  error text,
  duration_ms integer CHECK (duration_ms >= 0),
  PRIMARY KEY (delivery_id, attempt)
);
