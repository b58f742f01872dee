-- Brute-force limits (plugins/auth/README.md, "Brute-force limits"): counters per scope ('login:account',
-- 'login:ip', 'register:ip') and key, in Postgres so every replica shares them. A soft, exponential delay:
-- never a permanent lockout.
CREATE TABLE auth_attempts (
  scope text NOT NULL,
  key text NOT NULL,
  failures integer NOT NULL CHECK (failures >= 0),
  window_started_at timestamptz NOT NULL,
  blocked_until timestamptz,
  PRIMARY KEY (scope, key)
);
-- Old counters can be swept by blocked_until/window age; the primary key serves every request's lookup.
CREATE INDEX auth_attempts_window_idx ON auth_attempts (window_started_at);
