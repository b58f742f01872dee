-- Append-only audit trail shared by the core and every plugin: what happened (`kind`), who did it, from
-- which address and in which request (docs/api-auth-gate.md, "Audit rows", shows how to query it).
-- Rows are only ever inserted: the trigger below refuses UPDATE and DELETE, so an audit row, once
-- written, is evidence. Retention is a partition/archive job, not an UPDATE.
CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  kind text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$'),
  actor text,
  request_id text,
  ip inet,
  payload jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE INDEX audit_log_kind_at_idx ON audit_log (kind, at DESC);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC);
CREATE INDEX audit_log_request_id_idx ON audit_log (request_id) WHERE request_id IS NOT NULL;

CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_log_append_only
  BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();

CREATE TRIGGER audit_log_no_truncate
  BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_is_append_only();
