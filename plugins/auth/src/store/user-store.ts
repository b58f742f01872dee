import type pg from 'pg';

export interface UserRow {
  id: string;
  email: string;
  provider: 'local' | 'ldap' | 'oidc';
  directoryManaged: boolean;
  passwordHash: string | null;
  disabledAt: Date | null;
  roles: string[];
}

type Queryable = Pick<pg.PoolClient, 'query'>;

const SELECT_USER = `
  SELECT u.id, u.email, u.provider, u.directory_managed AS "directoryManaged", u.password_hash AS "passwordHash",
         u.disabled_at AS "disabledAt",
         coalesce(array_agg(r.role ORDER BY r.role) FILTER (WHERE r.role IS NOT NULL), '{}') AS roles
    FROM auth_users u LEFT JOIN auth_user_roles r ON r.user_id = u.id`;

/** SQL of the auth plugin's accounts (migrations/auth/0001). Parameterised queries only. */
export const userStore = {
  async findByEmail(db: Queryable, email: string): Promise<UserRow | null> {
    const { rows } = await db.query<UserRow>(
      `${SELECT_USER} WHERE lower(u.email) = lower($1) GROUP BY u.id`,
      [email],
    );
    return rows[0] ?? null;
  },

  /**
   * Inserts a local account. Returns null when the email is taken (case-insensitively): the unique index
   * decides, so concurrent creations of one email yield exactly one account.
   */
  async insertLocal(db: Queryable, email: string, passwordHash: string): Promise<{ id: string } | null> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth_users (email, provider, password_hash) VALUES ($1, 'local', $2)
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
      [email, passwordHash],
    );
    return rows[0] ?? null;
  },

  async grantRole(db: Queryable, userId: string, role: string, grantedBy: string): Promise<boolean> {
    const { rowCount } = await db.query(
      'INSERT INTO auth_user_roles (user_id, role, granted_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [userId, role, grantedBy],
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

  async findById(db: Queryable, id: string): Promise<UserRow | null> {
    const { rows } = await db.query<UserRow>(`${SELECT_USER} WHERE u.id = $1 GROUP BY u.id`, [id]);
    return rows[0] ?? null;
  },

  async passwordMinLength(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ min: number }>('SELECT password_min_length AS min FROM auth_settings');
    return rows[0]?.min ?? 12;
  },
};
