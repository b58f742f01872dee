import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { SCIM_GRANT } from '../domain/roles.ts';

export interface RoleChange {
  userId: string;
  role: string;
}

/**
 * The (user, role) pairs SCIM groups give: each live member of a group whose displayName the mapping names gets
 * that role, when the role exists. `$1` limits it to some users (NULL: every user); `$2`/`$3` are the mapping as
 * two arrays, group displayName and role.
 */
const DESIRED = `
  mapping AS (SELECT * FROM unnest($2::text[], $3::text[]) AS m(display_name, role)),
  desired AS (
    SELECT DISTINCT gm.user_id, m.role
      FROM auth_scim_group_members gm
      JOIN auth_scim_groups g ON g.id = gm.group_id
      JOIN mapping m ON m.display_name = g.display_name
      JOIN auth_roles r ON r.name = m.role
      JOIN auth_scim_users s ON s.user_id = gm.user_id AND s.deleted_at IS NULL
     WHERE $1::uuid[] IS NULL OR gm.user_id = ANY($1::uuid[])
  )`;

/** Roles granted from SCIM groups (docs/adr/0014-scim-provisioning.md). */
export const scimRoleStore = {
  /**
   * Makes the SCIM-granted roles of `userIds` (null: every user) equal what their groups give now: grants the
   * missing ones, removes SCIM grants the groups no longer give. A role held by another grant (an admin's, the
   * CLI's, LDAP's) is neither taken over nor removed. The caller holds the users' locks.
   */
  async sync(
    db: Queryable,
    userIds: readonly string[] | null,
    mapping: Readonly<Record<string, string>>,
  ): Promise<{ granted: RoleChange[]; revoked: RoleChange[] }> {
    const params = [userIds, Object.keys(mapping), Object.values(mapping)];
    const { rows: granted } = await db.query<RoleChange>(
      `WITH ${DESIRED}
       INSERT INTO auth_user_roles (user_id, role, granted_by)
       SELECT user_id, role, '${SCIM_GRANT}' FROM desired ON CONFLICT DO NOTHING
       RETURNING user_id AS "userId", role`,
      params,
    );
    const { rows: revoked } = await db.query<RoleChange>(
      `WITH ${DESIRED}
       DELETE FROM auth_user_roles ur
        WHERE ur.granted_by = '${SCIM_GRANT}' AND ($1::uuid[] IS NULL OR ur.user_id = ANY($1::uuid[]))
          AND NOT EXISTS (SELECT 1 FROM desired d WHERE d.user_id = ur.user_id AND d.role = ur.role)
       RETURNING ur.user_id AS "userId", ur.role`,
      params,
    );
    return { granted, revoked };
  },

  /** The mapped roles that do not exist (auth_roles): grants of them are skipped. */
  async missingRoles(db: Queryable, roles: readonly string[]): Promise<string[]> {
    const { rows } = await db.query<{ name: string }>(
      `SELECT t.r AS name FROM unnest($1::text[]) AS t(r)
        WHERE NOT EXISTS (SELECT 1 FROM auth_roles WHERE auth_roles.name = t.r)`,
      [roles],
    );
    return rows.map((row) => row.name);
  },
};
