import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { GroupConditions } from '../domain/scim/list-query.ts';

export interface ScimGroupRow {
  id: string;
  displayName: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ScimGroupFields {
  displayName: string;
  displayNameKey: string;
  externalId: string | null;
}

/** A member as a group shows it: the user id and the user's display name (else userName). */
export interface ScimMemberView {
  value: string;
  display: string;
}

const COLUMNS = `g.id, g.display_name AS "displayName", g.external_id AS "externalId",
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

const WHERE_CONDITIONS: Record<keyof GroupConditions, (parameter: string) => string> = {
  displayNameKey: (p) => `g.display_name_key = ${p}`,
  externalId: (p) => `g.external_id = ${p}`,
  id: (p) => `g.id = ${p}`,
  memberId: (p) =>
    `EXISTS (SELECT 1 FROM auth_scim_group_members m WHERE m.group_id = g.id AND m.user_id = ${p})`,
};

/** auth_scim_groups and auth_scim_group_members (migrations/auth/0006). Parameterised queries only. */
export const scimGroupStore = {
  async insert(db: Queryable, fields: ScimGroupFields, now: Date): Promise<ScimGroupRow> {
    const { rows } = await db.query<ScimGroupRow>(
      `INSERT INTO auth_scim_groups AS g (display_name, display_name_key, external_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4) RETURNING ${COLUMNS}`,
      [fields.displayName, fields.displayNameKey, fields.externalId, now],
    );
    return rows[0] as ScimGroupRow;
  },

  async find(db: Queryable, id: string): Promise<ScimGroupRow | null> {
    const { rows } = await db.query<ScimGroupRow>(
      `SELECT ${COLUMNS} FROM auth_scim_groups g WHERE g.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  },

  /** The group, locked until the transaction ends: writes of one group happen one after the other. */
  async lock(db: Queryable, id: string): Promise<ScimGroupRow | null> {
    const { rows } = await db.query<ScimGroupRow>(
      `SELECT ${COLUMNS} FROM auth_scim_groups g WHERE g.id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  },

  async list(
    db: Queryable,
    where: GroupConditions,
    offset: number,
    limit: number,
  ): Promise<{ total: number; rows: ScimGroupRow[] }> {
    const conditions = ['true'];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(where) as Array<[keyof GroupConditions, unknown]>) {
      values.push(value);
      conditions.push(WHERE_CONDITIONS[key](`$${values.length}`));
    }
    const clause = conditions.join(' AND ');
    const [{ rows: count }, { rows }] = await Promise.all([
      db.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM auth_scim_groups g WHERE ${clause}`,
        values,
      ),
      db.query<ScimGroupRow>(
        `SELECT ${COLUMNS} FROM auth_scim_groups g WHERE ${clause}
          ORDER BY g.created_at, g.id LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
        [...values, limit, offset],
      ),
    ]);
    return { total: count[0]?.total ?? 0, rows };
  },

  async update(db: Queryable, id: string, fields: ScimGroupFields, now: Date): Promise<void> {
    await db.query(
      `UPDATE auth_scim_groups SET display_name = $2, display_name_key = $3, external_id = $4, updated_at = $5
        WHERE id = $1`,
      [id, fields.displayName, fields.displayNameKey, fields.externalId, now],
    );
  },

  /** Marks the group changed (its members changed, not its own columns). */
  async touch(db: Queryable, id: string, now: Date): Promise<void> {
    await db.query('UPDATE auth_scim_groups SET updated_at = $2 WHERE id = $1', [id, now]);
  },

  async delete(db: Queryable, id: string): Promise<void> {
    await db.query('DELETE FROM auth_scim_groups WHERE id = $1', [id]);
  },

  async memberIds(db: Queryable, groupId: string): Promise<string[]> {
    const { rows } = await db.query<{ userId: string }>(
      'SELECT user_id AS "userId" FROM auth_scim_group_members WHERE group_id = $1 ORDER BY user_id',
      [groupId],
    );
    return rows.map((row) => row.userId);
  },

  /** The members of each group, with the name each shows. */
  async members(db: Queryable, groupIds: readonly string[]): Promise<Map<string, ScimMemberView[]>> {
    const members = new Map<string, ScimMemberView[]>();
    if (groupIds.length === 0) return members;
    const { rows } = await db.query<{ groupId: string; value: string; display: string }>(
      `SELECT m.group_id AS "groupId", m.user_id AS value,
              coalesce(s.attributes->>'displayName', s.user_name) AS display
         FROM auth_scim_group_members m JOIN auth_scim_users s ON s.user_id = m.user_id
        WHERE m.group_id = ANY($1::uuid[]) ORDER BY m.group_id, m.user_id`,
      [groupIds],
    );
    for (const row of rows) {
      const list = members.get(row.groupId) ?? [];
      list.push({ value: row.value, display: row.display });
      members.set(row.groupId, list);
    }
    return members;
  },

  async addMembers(db: Queryable, groupId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await db.query(
      `INSERT INTO auth_scim_group_members (group_id, user_id)
       SELECT $1, u FROM unnest($2::uuid[]) AS u ON CONFLICT DO NOTHING`,
      [groupId, userIds],
    );
  },

  async removeMembers(db: Queryable, groupId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await db.query('DELETE FROM auth_scim_group_members WHERE group_id = $1 AND user_id = ANY($2::uuid[])', [
      groupId,
      userIds,
    ]);
  },
};
