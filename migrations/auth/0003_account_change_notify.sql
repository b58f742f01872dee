-- Every change of what an account's sessions are allowed to do (its roles, its disabled state, its email,
-- the account itself) is announced on the channel `auth_account_changed` with the user id, when the
-- transaction commits. Each replica keeps the current roles of signed-in accounts in memory and drops an
-- entry when it hears of it (plugins/auth/README.md, "Sessions and current roles"). A trigger rather than
-- a NOTIFY in each statement: no write path can forget it (admin API, LDAP group sync, `gatehouse admin
-- create`, a cascade, an operator's SQL).
CREATE FUNCTION auth_account_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    -- TRUNCATE: no user id to name; an empty payload means "every account".
    PERFORM pg_notify('auth_account_changed', '');
  ELSIF TG_TABLE_NAME = 'auth_users' THEN
    PERFORM pg_notify('auth_account_changed', (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)::text);
  ELSE
    IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('auth_account_changed', OLD.user_id::text); END IF;
    IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('auth_account_changed', NEW.user_id::text); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER auth_users_changed
  AFTER INSERT OR DELETE OR UPDATE OF email, disabled_at ON auth_users
  FOR EACH ROW EXECUTE FUNCTION auth_account_changed();
CREATE TRIGGER auth_user_roles_changed
  AFTER INSERT OR DELETE OR UPDATE ON auth_user_roles
  FOR EACH ROW EXECUTE FUNCTION auth_account_changed();
CREATE TRIGGER auth_users_truncated
  AFTER TRUNCATE ON auth_users FOR EACH STATEMENT EXECUTE FUNCTION auth_account_changed();
CREATE TRIGGER auth_user_roles_truncated
  AFTER TRUNCATE ON auth_user_roles FOR EACH STATEMENT EXECUTE FUNCTION auth_account_changed();
