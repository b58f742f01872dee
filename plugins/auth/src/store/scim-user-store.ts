import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { CanonicalEmail } from '../domain/email.ts';
import type { JsonObject } from '../domain/scim/json.ts';
import type { UserConditions } from '../domain/scim/list-query.ts';

/** A SCIM user with its account (migrations/auth/0006). */
export interface ScimUserRow {
  userId: string;
  userName: string;
  externalId: string | null;
  active: boolean;
  disabledByScim: boolean;
  attributes: JsonObject;
  createdAt: Date;
  updatedAt: Date;
  email: string;
  disabledAt: Date | null;
}

/** What a SCIM write sets on a user. */
export interface ScimUserFields {
  userName: string;
  userNameKey: string;
  externalId: string | null;
  active: boolean;
  disabledByScim: boolean;
  attributes: JsonObject;
}

const SELECT = `
  SELECT s.user_id AS "userId", s.user_name AS "userName", s.external_id AS "externalId", s.active,
         s.disabled_by_scim AS "disabledByScim", s.attributes, s.created_at AS "createdAt",
         s.updated_at AS "updatedAt", u.email, u.disabled_at AS "disabledAt"
    FROM auth_scim_users s JOIN auth_users u ON u.id = s.user_id`;

/** Each filterable attribute's column; the values are always parameters. */
const WHERE_COLUMNS: Record<keyof UserConditions, string> = {
  userNameKey: 's.user_name_key',
  externalId: 's.external_id',
  userId: 's.user_id',
  active: 's.active',
};

/** auth_scim_users and the accounts behind them. Parameterised queries only. */
export const scimUserStore = {
  async find(db: Queryable, userId: string): Promise<ScimUserRow | null> {
    const { rows } = await db.query<ScimUserRow>(`${SELECT} WHERE s.user_id = $1 AND s.deleted_at IS NULL`, [
      userId,
    ]);
    return rows[0] ?? null;
  },

  /** The user, locked until the transaction ends: SCIM writes of one user happen one after the other. */
  async lock(db: Queryable, userId: string): Promise<ScimUserRow | null> {
    const { rows } = await db.query<ScimUserRow>(
      `${SELECT} WHERE s.user_id = $1 AND s.deleted_at IS NULL FOR UPDATE OF s`,
      [userId],
    );
    return rows[0] ?? null;
  },

  /**
   * Locks the SCIM users among `userIds` in id order (one order for every caller, so two transactions locking
   * overlapping sets cannot deadlock) and returns the ids of those not deleted.
   */
  async lockMany(db: Queryable, userIds: readonly string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const { rows } = await db.query<{ userId: string; deleted: boolean }>(
      `SELECT user_id AS "userId", deleted_at IS NOT NULL AS deleted FROM auth_scim_users
        WHERE user_id = ANY($1::uuid[]) ORDER BY user_id FOR UPDATE`,
      [userIds],
    );
    return rows.filter((row) => !row.deleted).map((row) => row.userId);
  },

  /** Every SCIM user, locked in id order (the role sync at boot). */
  async lockAll(db: Queryable): Promise<void> {
    await db.query('SELECT 1 FROM auth_scim_users ORDER BY user_id FOR UPDATE');
  },

  async list(
    db: Queryable,
    where: UserConditions,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: ScimUserRow[] }> {
    const conditions = ['s.deleted_at IS NULL'];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(where) as Array<[keyof UserConditions, unknown]>) {
      values.push(value);
      conditions.push(`${WHERE_COLUMNS[key]} = $${values.length}`);
    }
    const clause = conditions.join(' AND ');
    const [{ rows: count }, { rows }] = await Promise.all([
      db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM auth_scim_users s WHERE ${clause}`,
        values,
      ),
      db.query<ScimUserRow>(
        `${SELECT} WHERE ${clause} ORDER BY s.created_at, s.user_id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, limit, offset],
      ),
    ]);
    return { total: count[0]?.total ?? 0, rows };
  },

  /** Whether another live SCIM user has this userName (compared by its folded key). */
  async userNameTaken(db: Queryable, userNameKey: string, except: string | null): Promise<boolean> {
    const { rowCount } = await db.query(
      `SELECT 1 FROM auth_scim_users WHERE user_name_key = $1 AND deleted_at IS NULL
          AND user_id IS DISTINCT FROM $2::uuid`,
      [userNameKey, except],
    );
    return (rowCount ?? 0) > 0;
  },

  /**
   * The account with this email and whether SCIM manages it now (a SCIM user not deleted), locked: creating a
   * SCIM user for it must not race another creation.
   */
  async accountByEmail(
    db: Queryable,
    email: CanonicalEmail,
  ): Promise<{
    id: string;
    provider: string;
    managed: boolean;
    disabledAt: Date | null;
    disabledByScim: boolean;
  } | null> {
    const { rows } = await db.query<{
      id: string;
      provider: string;
      managed: boolean;
      disabledAt: Date | null;
      disabledByScim: boolean;
    }>(
      `SELECT u.id, u.provider, (s.user_id IS NOT NULL AND s.deleted_at IS NULL) AS managed,
              u.disabled_at AS "disabledAt", coalesce(s.disabled_by_scim, false) AS "disabledByScim"
         FROM auth_users u LEFT JOIN auth_scim_users s ON s.user_id = u.id
        WHERE u.email = $1 FOR UPDATE OF u`,
      [email],
    );
    return rows[0] ?? null;
  },

  /** A new account for a SCIM user: single sign-on only (no password), managed by the directory. */
  async insertAccount(db: Queryable, email: CanonicalEmail, disabledAt: Date | null): Promise<string | null> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO auth_users (email, provider, directory_managed, disabled_at) VALUES ($1, 'oidc', true, $2)
       ON CONFLICT (email) DO NOTHING RETURNING id`,
      [email, disabledAt],
    );
    return rows[0]?.id ?? null;
  },

  /** An account single sign-on made before SCIM knew it becomes the SCIM user's account. */
  async adoptAccount(db: Queryable, userId: string): Promise<void> {
    await db.query('UPDATE auth_users SET directory_managed = true, updated_at = now() WHERE id = $1', [
      userId,
    ]);
  },

  /** Creates the SCIM user of an account, or brings a deleted one back with the new values. */
  async upsert(db: Queryable, userId: string, fields: ScimUserFields, now: Date): Promise<void> {
    await db.query(
      `INSERT INTO auth_scim_users (user_id, user_name, user_name_key, external_id, active, disabled_by_scim,
                                    attributes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (user_id) DO UPDATE SET user_name = $2, user_name_key = $3, external_id = $4, active = $5,
         disabled_by_scim = $6, attributes = $7, created_at = $8, updated_at = $8, deleted_at = NULL`,
      rowValues(userId, fields, now),
    );
  },

  async update(db: Queryable, userId: string, fields: ScimUserFields, now: Date): Promise<void> {
    await db.query(
      `UPDATE auth_scim_users SET user_name = $2, user_name_key = $3, external_id = $4, active = $5,
              disabled_by_scim = $6, attributes = $7, updated_at = $8
        WHERE user_id = $1`,
      rowValues(userId, fields, now),
    );
  },

  /** Deletes the SCIM user (its account stays) and its group memberships. */
  async markDeleted(db: Queryable, userId: string, now: Date, disabledByScim: boolean): Promise<void> {
    await db.query('DELETE FROM auth_scim_group_members WHERE user_id = $1', [userId]);
    await db.query(
      `UPDATE auth_scim_users SET deleted_at = $2, updated_at = $2, active = false, disabled_by_scim = $3
        WHERE user_id = $1`,
      [userId, now, disabledByScim],
    );
  },

  async setAccountEmail(db: Queryable, userId: string, email: CanonicalEmail): Promise<void> {
    await db.query('UPDATE auth_users SET email = $2, updated_at = now() WHERE id = $1', [userId, email]);
  },

  async setAccountDisabled(db: Queryable, userId: string, disabledAt: Date | null): Promise<void> {
    await db.query('UPDATE auth_users SET disabled_at = $2, updated_at = now() WHERE id = $1', [
      userId,
      disabledAt,
    ]);
  },

  /** The groups of each user, for the users' `groups` attribute. */
  async groupsOf(
    db: Queryable,
    userIds: readonly string[],
  ): Promise<Map<string, Array<{ id: string; displayName: string }>>> {
    const groups = new Map<string, Array<{ id: string; displayName: string }>>();
    if (userIds.length === 0) return groups;
    const { rows } = await db.query<{ userId: string; id: string; displayName: string }>(
      `SELECT m.user_id AS "userId", g.id, g.display_name AS "displayName"
         FROM auth_scim_group_members m JOIN auth_scim_groups g ON g.id = m.group_id
        WHERE m.user_id = ANY($1::uuid[]) ORDER BY g.display_name, g.id`,
      [userIds],
    );
    for (const row of rows) {
      const list = groups.get(row.userId) ?? [];
      list.push({ id: row.id, displayName: row.displayName });
      groups.set(row.userId, list);
    }
    return groups;
  },
};

/** True for the unique-violation error of the named index or constraint. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const error = err as { code?: unknown; constraint?: unknown } | null;
  return error?.code === '23505' && error.constraint === constraint;
}

/** The unique indexes a SCIM user write can hit. */
export const SCIM_USER_CONSTRAINTS = {
  userName: 'auth_scim_users_user_name_key',
  email: 'auth_users_email_key',
} as const;

/** The parameters $1-$8 of `upsert` and `update`, in their order. */
function rowValues(userId: string, fields: ScimUserFields, now: Date): unknown[] {
  return [
    userId,
    fields.userName,
    fields.userNameKey,
    fields.externalId,
    fields.active,
    fields.disabledByScim,
    JSON.stringify(fields.attributes),
    now,
  ];
}
