-- Single sign-on (plugins/auth/README.md, "Single sign-on" and "Device tokens"): identities at OpenID Providers,
-- the browser flows in progress, device sign-ins and their refresh tokens.

-- An account's identity at an issuer. A returning sign-in finds its account by (issuer, subject) and never by
-- email; an account has at most one subject per issuer.
CREATE TABLE auth_identities (
  issuer text NOT NULL CHECK (issuer <> '' AND length(issuer) <= 2048),
  subject text NOT NULL CHECK (subject <> '' AND length(subject) <= 255),
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  linked_at timestamptz NOT NULL,
  last_sign_in_at timestamptz NOT NULL,
  PRIMARY KEY (issuer, subject),
  UNIQUE (user_id, issuer)
);

-- The name the identity provider gives the person, updated at each single sign-on.
ALTER TABLE auth_users ADD COLUMN display_name text CHECK (length(display_name) <= 256);

-- The account BOOTSTRAP_ADMIN_EMAIL made a wildcard admin, once: removing the role later is not undone by the next
-- sign-in, and a second account with that email (after a change at the provider) is not granted it.
ALTER TABLE auth_settings
  ADD COLUMN bootstrap_admin_user_id uuid REFERENCES auth_users (id) ON DELETE SET NULL,
  ADD COLUMN bootstrap_admin_granted_at timestamptz;

-- A browser's sign-in in progress: created by /auth/oidc/start, used once by the exchange. The state and the
-- browser's flow cookie are bearer values: only their SHA-256 is stored.
CREATE TABLE auth_oidc_flows (
  state_hash bytea PRIMARY KEY CHECK (length(state_hash) = 32),
  browser_hash bytea NOT NULL CHECK (length(browser_hash) = 32),
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  return_to text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK (expires_at > created_at)
);
CREATE INDEX auth_oidc_flows_expiry_idx ON auth_oidc_flows (expires_at);

-- A device sign-in is a session row of kind 'device' (its access tokens carry the row's id as `sid`, so revoking
-- the row refuses them at the gate at once); the row's expiry is its refresh tokens' horizon.
ALTER TABLE auth_sessions
  ADD COLUMN kind text NOT NULL DEFAULT 'web' CHECK (kind IN ('web', 'device')),
  ADD COLUMN device_id text CHECK (length(device_id) BETWEEN 1 AND 200),
  ADD COLUMN device_name text CHECK (length(device_name) <= 200),
  ADD COLUMN device_platform text CHECK (length(device_platform) <= 50),
  ADD CONSTRAINT auth_sessions_device_check CHECK ((kind = 'device') = (device_id IS NOT NULL));

-- Refresh tokens of a device session (its "family"): opaque, stored as SHA-256, each used once. A spent token used
-- again revokes the family.
CREATE TABLE auth_refresh_tokens (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  session_id text NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
  issued_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  spent_at timestamptz,
  CHECK (expires_at > issued_at)
);
CREATE INDEX auth_refresh_tokens_session_idx ON auth_refresh_tokens (session_id);
