-- Accounts, roles, server-side sessions and sign-in settings of the auth plugin (plugins/auth/README.md).
-- Tables carry the plugin id as prefix.

CREATE TABLE auth_users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL CHECK (email = btrim(email) AND email <> '' AND length(email) <= 320),
  -- local: password (and passkeys later); ldap: provisioned by a first directory login; oidc: by a first SSO login.
  provider text NOT NULL DEFAULT 'local' CHECK (provider IN ('local', 'ldap', 'oidc')),
  -- Managed by an external directory (plugins/auth/README.md, "LDAP sign-in"): its second factor, if it has
  -- one, is the identity provider's business, not the gateway's.
  directory_managed boolean NOT NULL DEFAULT false,
  -- argon2id PHC string; NULL for accounts without a password (SSO-only, directory, demo convention).
  password_hash text CHECK (password_hash IS NULL OR password_hash LIKE '$argon2id$%'),
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Email is unique case-insensitively; the index also serves sign-in lookups.
CREATE UNIQUE INDEX auth_users_email_key ON auth_users (lower(email));

CREATE TABLE auth_roles (
  name text PRIMARY KEY CHECK (name = '*' OR name ~ '^[a-z][a-z0-9_.:-]*$'),
  description text NOT NULL DEFAULT '',
  builtin boolean NOT NULL DEFAULT false
);
INSERT INTO auth_roles (name, description, builtin) VALUES
  ('*', 'Wildcard administrator: every permission', true),
  ('users:admin', 'Manage users, roles and sign-in settings', true);

CREATE TABLE auth_user_roles (
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  role text NOT NULL REFERENCES auth_roles (name),
  granted_at timestamptz NOT NULL DEFAULT now(),
  granted_by text,
  PRIMARY KEY (user_id, role)
);

-- Server-side sessions (plugins/auth/README.md, "Web sessions"): the cookie's token carries the row's id
-- (`sid`), so a session revoked here is refused at the API gate.
CREATE TABLE auth_sessions (
  id text PRIMARY KEY CHECK (length(id) >= 32),
  user_id uuid NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  user_agent text,
  ip inet,
  revoked_at timestamptz,
  revoked_reason text,
  CHECK (expires_at > created_at)
);
CREATE INDEX auth_sessions_live_by_user_idx ON auth_sessions (user_id) WHERE revoked_at IS NULL;

-- One row: the admin-tunable sign-in settings. An admin may lower the minimum password length, never below
-- 8 (plugins/auth/README.md, "Passwords"); the CHECK holds that floor whatever writes the row.
CREATE TABLE auth_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  registration_enabled boolean NOT NULL DEFAULT false,
  password_min_length integer NOT NULL DEFAULT 12 CHECK (password_min_length BETWEEN 8 AND 256),
  require_totp boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO auth_settings DEFAULT VALUES;
