-- SCIM 2.0 provisioning (plugins/auth/README.md, "SCIM provisioning"; docs/adr/0014-scim-provisioning.md): the
-- bearer tokens an identity provider calls with, the users and groups it manages, and group memberships.

-- Tokens are made by `gatehouse scim token create` and shown once; only their SHA-256 is kept.
CREATE TABLE auth_scim_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
  -- 'scim_' and the first characters, so an admin can tell tokens apart; useless to an attacker.
  display_prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);

-- A SCIM user is an account (auth_users, provider 'oidc', no password, directory-managed) plus what the
-- directory says about it. Its SCIM id is the account id.
CREATE TABLE auth_scim_users (
  user_id uuid PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE,
  user_name text NOT NULL CHECK (length(user_name) BETWEEN 1 AND 256),
  -- userName compares case-insensitively; the gateway folds it (NFKC, lower case) rather than the
  -- database, whose lower() follows its locale.
  user_name_key text NOT NULL,
  external_id text CHECK (length(external_id) <= 256),
  -- What the directory asserts. An account an admin disabled stays disabled whatever this says.
  active boolean NOT NULL,
  -- True while the account is disabled because SCIM deactivated it: only then does reactivation enable it.
  disabled_by_scim boolean NOT NULL DEFAULT false,
  -- The other attributes the gateway keeps (name, emails, the enterprise extension...), as SCIM spells them.
  attributes jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- A deleted SCIM user is gone for SCIM (404, its userName free again); its account stays, disabled.
  deleted_at timestamptz
);
CREATE UNIQUE INDEX auth_scim_users_user_name_key ON auth_scim_users (user_name_key) WHERE deleted_at IS NULL;
CREATE INDEX auth_scim_users_external_id_idx ON auth_scim_users (external_id) WHERE deleted_at IS NULL;
CREATE INDEX auth_scim_users_created_idx ON auth_scim_users (created_at, user_id) WHERE deleted_at IS NULL;

CREATE TABLE auth_scim_groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 256),
  display_name_key text NOT NULL,
  external_id text CHECK (length(external_id) <= 256),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX auth_scim_groups_display_name_idx ON auth_scim_groups (display_name_key);
CREATE INDEX auth_scim_groups_external_id_idx ON auth_scim_groups (external_id);
CREATE INDEX auth_scim_groups_created_idx ON auth_scim_groups (created_at, id);

CREATE TABLE auth_scim_group_members (
  group_id uuid NOT NULL REFERENCES auth_scim_groups (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES auth_scim_users (user_id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX auth_scim_group_members_user_idx ON auth_scim_group_members (user_id);
