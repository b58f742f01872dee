import { foldEmail, type CanonicalEmail } from '../domain/email.ts';
import { SYNC_GRANTS } from '../domain/roles.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface UserRow {
  id: string;
  email: string;
  provider: 'local' | 'ldap' | 'oidc';
  directoryManaged: boolean;
  passwordHash: string | null;
  disabledAt: Date | null;
  roles: string[];
}

/** Postgres channel on which every change of an account's roles or state is announced (migrations/auth/0003). */
export const ACCOUNT_CHANGED_CHANNEL = 'auth_account_changed';

/** What a session of the account may do now: its email and roles; disabled accounts are not live. */
export interface LiveAccount {
  email: string;
  roles: readonly string[];
}

const SELECT_USER = `
  SELECT u.id, u.email, u.provider, u.directory_managed AS "directoryManaged", u.password_hash AS "passwordHash",
         u.disabled_at AS "disabledAt",
         coalesce(array_agg(r.role ORDER BY r.role) FILTER (WHERE r.role IS NOT NULL), '{}') AS roles
    FROM auth_users u LEFT JOIN auth_user_roles r ON r.user_id = u.id`;

/** SQL of the auth plugin's accounts (migrations/auth/0001). Parameterised queries only. */
export const userStore = {
  /**
   * Emails are stored in their canonical form (domain/email.ts) and compared exactly: SQL never folds case,
   * since Postgres's lower() follows the database's locale and need not agree with the gateway's folding.
   */
  async findByEmail(db: Queryable, email: CanonicalEmail): Promise<UserRow | null> {
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.email = $1 GROUP BY u.id`, [email]);
    return rows[0] ?? null;
  },

  /**
   * Inserts a local account. Returns null when the email is taken: the unique index decides, so concurrent
   * creations of one email yield exactly one account.
   */
  async insertLocal(
    db: Queryable,
    email: CanonicalEmail,
    passwordHash: string,
  ): Promise<{ id: string } | null> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth_users (email, provider, password_hash) VALUES ($1, 'local', $2)
       ON CONFLICT (email) DO NOTHING RETURNING id`,
      [email, passwordHash],
    );
    return rows[0] ?? null;
  },

  /** The account of a directory user, made on the first directory login (directory-managed, no password). */
  async provisionDirectoryUser(db: Queryable, email: CanonicalEmail): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `WITH made AS (
         INSERT INTO auth_users (email, provider, directory_managed) VALUES ($1, 'ldap', true)
         ON CONFLICT (email) DO NOTHING RETURNING id
       ) SELECT id FROM made UNION ALL SELECT id FROM auth_users WHERE email = $1 LIMIT 1`,
      [email],
    );
    const id = rows[0]?.id;
    if (!id) throw new Error('directory user could not be provisioned');
    return id;
  },

  /**
   * Makes the roles granted from directory groups equal `roles`: grants the missing ones, removes the ones
   * an earlier directory login granted that the groups no longer give. Roles an admin granted stay.
   */
  async syncDirectoryRoles(db: Queryable, userId: string, roles: readonly string[]): Promise<void> {
    await db.query(
      `INSERT INTO auth_user_roles (user_id, role, granted_by)
       SELECT $1, r.name, 'ldap' FROM auth_roles r WHERE r.name = ANY($2::text[]) ON CONFLICT DO NOTHING`,
      [userId, roles],
    );
    await db.query(
      "DELETE FROM auth_user_roles WHERE user_id = $1 AND granted_by = 'ldap' AND NOT (role = ANY($2::text[]))",
      [userId, roles],
    );
  },

  /**
   * The account of a first single sign-on (no password, no roles). Null when the email is taken: the unique
   * index decides, so two first sign-ins of one email at once make one account.
   */
  async insertOidc(db: Queryable, email: CanonicalEmail, displayName: string | null): Promise<string | null> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth_users (email, provider, display_name) VALUES ($1, 'oidc', $2)
       ON CONFLICT (email) DO NOTHING RETURNING id`,
      [email, displayName],
    );
    return rows[0]?.id ?? null;
  },

  /** The name the identity provider gives, and its verified email when no other account holds it. */
  async updateProfile(
    db: Queryable,
    userId: string,
    profile: { displayName: string | null; email: CanonicalEmail | null },
  ): Promise<void> {
    await db.query(
      `UPDATE auth_users u SET display_name = $2,
              email = CASE WHEN $3::text IS NOT NULL
                            AND NOT EXISTS (SELECT 1 FROM auth_users o WHERE o.email = $3 AND o.id <> u.id)
                           THEN $3 ELSE u.email END,
              updated_at = now()
        WHERE u.id = $1 AND (u.display_name IS DISTINCT FROM $2 OR ($3::text IS NOT NULL AND u.email <> $3))`,
      [userId, profile.displayName, profile.email],
    );
  },

  /**
   * Records that BOOTSTRAP_ADMIN_EMAIL's account was made a wildcard admin; false when one already was (the
   * grant happens once per database, whatever happens to the role or the variable afterwards).
   */
  async claimBootstrapAdmin(db: Queryable, userId: string, now: Date): Promise<boolean> {
    const { rowCount } = await db.query(
      `UPDATE auth_settings SET bootstrap_admin_user_id = $1, bootstrap_admin_granted_at = $2
        WHERE bootstrap_admin_granted_at IS NULL`,
      [userId, now],
    );
    return rowCount === 1;
  },

  /**
   * Grants a role by hand (an admin, the CLI). A role the user holds only through a directory sync (LDAP groups,
   * SCIM groups) becomes this grant, so the sync, which removes only its own grants, keeps it when the groups
   * stop giving it (docs/adr/0014-scim-provisioning.md). True when the grant is new or taken over.
   */
  async grantRole(db: Queryable, userId: string, role: string, grantedBy: string): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO auth_user_roles (user_id, role, granted_by) VALUES ($1, $2, $3)
       ON CONFLICT (user_id, role) DO UPDATE SET granted_by = EXCLUDED.granted_by, granted_at = now()
        WHERE auth_user_roles.granted_by = ANY($4::text[])`,
      [userId, role, grantedBy, SYNC_GRANTS],
    );
    return rowCount === 1;
  },

  async setPasswordHash(db: Queryable, userId: string, passwordHash: string): Promise<void> {
    await db.query('UPDATE auth_users SET password_hash = $2, updated_at = now() WHERE id = $1', [
      userId,
      passwordHash,
    ]);
  },

  async registrationEnabled(db: Queryable): Promise<boolean> {
    const { rows } = await db.query<{ enabled: boolean }>(
      'SELECT registration_enabled AS enabled FROM auth_settings',
    );
    return rows[0]?.enabled ?? false;
  },

  /** The account as a session sees it now, or null when it is missing or disabled. */
  async live(db: Queryable, id: string): Promise<LiveAccount | null> {
    const { rows } = await db.query<LiveAccount>(
      `SELECT u.email, coalesce(array_agg(r.role ORDER BY r.role) FILTER (WHERE r.role IS NOT NULL), '{}') AS roles
         FROM auth_users u LEFT JOIN auth_user_roles r ON r.user_id = u.id
        WHERE u.id = $1 AND u.disabled_at IS NULL GROUP BY u.id`,
      [id],
    );
    return rows[0] ?? null;
  },

  async findById(db: Queryable, id: string): Promise<UserRow | null> {
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.id = $1 GROUP BY u.id`, [id]);
    return rows[0] ?? null;
  },

  /**
   * Users whose email contains `search` folded as emails are (so in any case or width), newest first, with
   * the total for paging.
   */
  async search(
    db: Queryable,
    search: string,
    limit: number,
    offset: number,
  ): Promise<{ total: number; users: UserRow[] }> {
    const pattern = `%${foldEmail(search).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const [{ rows: count }, { rows }] = await Promise.all([
      db.query<{ total: number }>('SELECT count(*)::int AS total FROM auth_users WHERE email LIKE $1', [
        pattern,
      ]),
      db.query<UserRow>(
        `${SELECT_USER} WHERE u.email LIKE $1 GROUP BY u.id ORDER BY u.created_at DESC, u.id LIMIT $2 OFFSET $3`,
        [pattern, limit, offset],
      ),
    ]);
    return { total: count[0]?.total ?? 0, users: rows };
  },

  async revokeRole(db: Queryable, userId: string, role: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM auth_user_roles WHERE user_id = $1 AND role = $2', [
      userId,
      role,
    ]);
    return rowCount === 1;
  },

  async roleExists(db: Queryable, role: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM auth_roles WHERE name = $1', [role]);
    return rowCount === 1;
  },

  async disable(db: Queryable, userId: string, now: Date): Promise<boolean> {
    const { rowCount } = await db.query(
      'UPDATE auth_users SET disabled_at = $2, updated_at = $2 WHERE id = $1 AND disabled_at IS NULL',
      [userId, now],
    );
    return rowCount === 1;
  },

  async settings(
    db: Queryable,
  ): Promise<{ registrationEnabled: boolean; passwordMinLength: number; requireTotp: boolean }> {
    const { rows } = await db.query<{
      registrationEnabled: boolean;
      passwordMinLength: number;
      requireTotp: boolean;
    }>(
      'SELECT registration_enabled AS "registrationEnabled", password_min_length AS "passwordMinLength", require_totp AS "requireTotp" FROM auth_settings',
    );
    const row = rows[0];
    if (!row) throw new Error('auth_settings has no row (migration auth/0001 inserts it)');
    return row;
  },

  async updateSettings(
    db: Queryable,
    changes: { registrationEnabled?: boolean; passwordMinLength?: number; requireTotp?: boolean },
  ): Promise<void> {
    await db.query(
      `UPDATE auth_settings SET
         registration_enabled = coalesce($1, registration_enabled),
         password_min_length = coalesce($2, password_min_length),
         require_totp = coalesce($3, require_totp),
         updated_at = now()`,
      [changes.registrationEnabled ?? null, changes.passwordMinLength ?? null, changes.requireTotp ?? null],
    );
  },

  async passwordMinLength(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ min: number }>('SELECT password_min_length AS min FROM auth_settings');
    return rows[0]?.min ?? 12;
  },
};
