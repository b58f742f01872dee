-- Second factors (plugins/auth/README.md, "Second factors"): TOTP, recovery codes and passkeys, the sign-in that
-- waits for a factor, and the WebAuthn ceremonies in progress. Bearer values (tokens, recovery codes) are stored as
-- SHA-256 only.

-- One TOTP enrollment per account. The secret is encrypted by the gateway (AES-256-GCM; `key_id` names the key
-- of TOTP_ENCRYPTION_KEY that sealed it). `confirmed_at` is NULL until the first code proves the app has it.
-- `last_step` is the replay guard: the newest RFC 6238 time step accepted; a code of that step or an older one is
-- refused, and it only moves forward (compare-and-set in the transaction that issues the session).
CREATE TABLE auth_totp (
  user_id uuid PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE,
  key_id text NOT NULL CHECK (length(key_id) BETWEEN 1 AND 64),
  secret_sealed bytea NOT NULL CHECK (length(secret_sealed) BETWEEN 29 AND 512),
  created_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  last_step bigint CHECK (last_step >= 0)
);

-- Recovery codes: shown once, stored as SHA-256, each used once (`used_at`). Regenerating deletes the old set.
CREATE TABLE auth_recovery_codes (
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL CHECK (length(code_hash) = 32),
  created_at timestamptz NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- Passkeys (WebAuthn credentials). `credential_id` is the authenticator's id (base64url), unique across accounts;
-- `sign_count` is the authenticator's counter as last seen, compared on every sign-in (a counter that does not
-- increase, except 0 → 0 for synced passkeys, is a clone suspicion).
CREATE TABLE auth_passkeys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  credential_id text NOT NULL UNIQUE CHECK (length(credential_id) BETWEEN 1 AND 1400),
  public_key bytea NOT NULL,
  sign_count bigint NOT NULL CHECK (sign_count >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  aaguid text,
  device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up boolean NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz
);
CREATE INDEX auth_passkeys_user_idx ON auth_passkeys (user_id);

-- A WebAuthn ceremony between its begin and its finish: the opaque token the client holds is the row's key (as
-- SHA-256); single use (the finish deletes it), 5 minutes. `user_id` is set for registration, for a passkey used
-- as the second step of a password sign-in, and for a step-up; NULL for usernameless sign-in.
CREATE TABLE auth_webauthn_ceremonies (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  purpose text NOT NULL CHECK (purpose IN ('register', 'sign-in', 'step-up')),
  challenge text NOT NULL CHECK (length(challenge) BETWEEN 16 AND 200),
  user_id uuid REFERENCES auth_users (id) ON DELETE CASCADE,
  pending_hash bytea CHECK (length(pending_hash) = 32),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK (expires_at > created_at),
  CHECK (purpose = 'sign-in' OR user_id IS NOT NULL)
);
CREATE INDEX auth_webauthn_ceremonies_expiry_idx ON auth_webauthn_ceremonies (expires_at);

-- A password sign-in that passed its first step and waits for the second factor (or for one to be enrolled).
-- Short-lived and single use: the transaction that issues the session deletes it. `attempts` counts wrong codes;
-- past the limit the row is deleted and the sign-in starts again.
CREATE TABLE auth_pending_sign_ins (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  method text NOT NULL CHECK (method IN ('password', 'ldap')),
  enroll boolean NOT NULL,
  break_glass boolean NOT NULL,
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK (expires_at > created_at)
);
CREATE INDEX auth_pending_sign_ins_expiry_idx ON auth_pending_sign_ins (expires_at);

-- When this session last proved a second factor (at sign-in, or a step-up): removing a factor or making new
-- recovery codes needs a recent one.
ALTER TABLE auth_sessions ADD COLUMN factor_verified_at timestamptz;

-- Set by an administrator's TOTP reset: the account must enroll a second factor at its next password sign-in.
ALTER TABLE auth_users ADD COLUMN factor_enrollment_required boolean NOT NULL DEFAULT false;
