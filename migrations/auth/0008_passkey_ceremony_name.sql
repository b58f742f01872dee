-- The name a user gives a new passkey may come with the registration's begin (plugins/auth/README.md, "Passkeys"):
-- the ceremony keeps it until the finish, which may still give another one.
ALTER TABLE auth_webauthn_ceremonies
  ADD COLUMN passkey_name text CHECK (length(passkey_name) BETWEEN 1 AND 100),
  ADD CHECK (purpose = 'register' OR passkey_name IS NULL);
