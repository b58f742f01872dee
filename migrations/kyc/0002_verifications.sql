-- Verifications and their transition history (plugins/kyc/README.md, "For tenants: the API", where
-- "Statuses" lists the transitions a verification may take).
CREATE TABLE kyc_verifications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES kyc_tenants (id) ON DELETE CASCADE,
  type text NOT NULL,
  subject_external_ref text NOT NULL CHECK (length(subject_external_ref) BETWEEN 1 AND 200),
  status text NOT NULL
    CHECK (status IN ('pending', 'processing', 'approved', 'rejected', 'needs_review', 'expired')),
  sandbox boolean NOT NULL,
  provider text NOT NULL,
  -- Whether this initiation consumed a unit of billable quota (never for sandbox tenants).
  billable boolean NOT NULL,
  decision_reason text,
  -- When the provider should next be asked (start or poll); NULL = waiting for a callback or a reviewer.
  next_check_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  decided_at timestamptz
);
CREATE INDEX kyc_verifications_tenant_idx ON kyc_verifications (tenant_id, created_at);
-- The worker's two questions: what is due with the provider, and what has outlived its 7 days.
CREATE INDEX kyc_verifications_due_idx ON kyc_verifications (next_check_at)
  WHERE next_check_at IS NOT NULL;
CREATE INDEX kyc_verifications_open_expiry_idx ON kyc_verifications (expires_at)
  WHERE status IN ('pending', 'processing');

-- Every transition, in order: the history the status route returns.
CREATE TABLE kyc_verification_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  verification_id uuid NOT NULL REFERENCES kyc_verifications (id) ON DELETE CASCADE,
  from_status text,
  to_status text NOT NULL,
  reason text,
  -- 'tenant' (initiation), 'provider:<id>', 'reviewer:<user id>' or 'system' (expiry).
  actor text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX kyc_verification_events_verification_idx ON kyc_verification_events (verification_id, id);

-- Idempotency-Key on initiate, kept 24 h: the first request's body hash and its response.
CREATE TABLE kyc_idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES kyc_tenants (id) ON DELETE CASCADE,
  key text NOT NULL,
  request_hash bytea NOT NULL,
  response_status integer,
  response_body jsonb,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
CREATE INDEX kyc_idempotency_keys_expiry_idx ON kyc_idempotency_keys (expires_at);
