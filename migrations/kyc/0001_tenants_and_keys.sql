-- KYC tenants and their API keys (plugins/kyc/README.md, "For staff: tenants, keys, reviews").
CREATE TABLE kyc_tenants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- Every key of a sandbox tenant is a sandbox key: deterministic outcomes, no billable quota consumed.
  sandbox boolean NOT NULL,
  -- Which verification provider decides this tenant's verifications ('sandbox' or 'manual' built in).
  provider text NOT NULL CHECK (provider ~ '^[a-z][a-z0-9_]{0,39}$'),
  -- Billable initiations allowed per period; sandbox tenants never consume it.
  quota_limit integer NOT NULL DEFAULT 0 CHECK (quota_limit >= 0),
  quota_period text NOT NULL DEFAULT 'month' CHECK (quota_period IN ('day', 'month', 'lifetime')),
  webhook_url text CHECK (webhook_url IS NULL OR webhook_url ~ '^https?://'),
  -- The HMAC secret for webhook signatures: the tenant verifies with it, so it is kept, not hashed.
  webhook_secret text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((webhook_url IS NULL) = (webhook_secret IS NULL))
);

CREATE TABLE kyc_api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES kyc_tenants (id) ON DELETE CASCADE,
  -- SHA-256 of the whole key: the key itself is shown once and never stored.
  key_hash bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  -- 'kyc_sandbox_' or 'kyc_live_' plus the first characters, so admins can tell keys apart.
  display_prefix text NOT NULL,
  label text CHECK (label IS NULL OR length(label) <= 200),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX kyc_api_keys_tenant_idx ON kyc_api_keys (tenant_id);

-- Billable consumption per tenant and period (period_start is the UTC start of the day or month; the
-- epoch for 'lifetime'). One row per period, incremented under its row lock: concurrent initiations
-- can never overspend.
CREATE TABLE kyc_quota_usage (
  tenant_id uuid NOT NULL REFERENCES kyc_tenants (id) ON DELETE CASCADE,
  period_start timestamptz NOT NULL,
  used integer NOT NULL CHECK (used >= 0),
  PRIMARY KEY (tenant_id, period_start)
);

-- Rate-limit windows per API key, shared by every replica. Replicas lease tokens from a window in
-- small batches (plugins/kyc/src/service/rate-limiter.ts); `leased` never exceeds the limit.
CREATE TABLE kyc_rate_windows (
  key_id uuid NOT NULL REFERENCES kyc_api_keys (id) ON DELETE CASCADE,
  window_start timestamptz NOT NULL,
  leased integer NOT NULL CHECK (leased >= 0),
  -- Tokens the last lease actually granted (leased after minus before), returned to that replica.
  last_grant integer NOT NULL CHECK (last_grant >= 0),
  PRIMARY KEY (key_id, window_start)
);
CREATE INDEX kyc_rate_windows_start_idx ON kyc_rate_windows (window_start);
