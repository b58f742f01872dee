import type { AuditWriter, Database, Logger, Queryable } from '../../../../../gateway/src/plugin-api.ts';
import { scimRoleStore } from '../../store/scim-role-store.ts';
import { scimUserStore } from '../../store/scim-user-store.ts';
import type { ScimChanges } from './scim-context.ts';

/**
 * Recomputes the roles SCIM groups give `userIds` (docs/adr/0014-scim-provisioning.md) inside the caller's
 * transaction, which holds the users' locks, and records each grant and removal for the audit.
 */
export async function syncGroupRoles(
  tx: Queryable,
  groupRoles: Readonly<Record<string, string>>,
  userIds: readonly string[],
  changes: ScimChanges,
): Promise<void> {
  if (userIds.length === 0) return;
  const { granted, revoked } = await scimRoleStore.sync(tx, userIds, groupRoles);
  for (const { userId, role } of granted) {
    changes.account(userId);
    changes.event('auth.role.granted', { userId, role, via: 'scim' });
  }
  for (const { userId, role } of revoked) {
    changes.account(userId);
    changes.event('auth.role.revoked', { userId, role, via: 'scim' });
  }
}

/**
 * At boot: brings every SCIM user's group roles in line with SCIM_GROUP_ROLES as it is now, so a mapping
 * changed or removed between restarts applies without waiting for a membership change. Every user is locked
 * in id order, the order the SCIM writes lock in, so it cannot deadlock with them. Mapped roles that do not
 * exist are logged: nothing grants them until an admin creates them.
 */
export async function syncAllGroupRoles(deps: {
  db: Database;
  logger: Logger;
  audit: AuditWriter;
  groupRoles: Readonly<Record<string, string>>;
}): Promise<void> {
  const roles = [...new Set(Object.values(deps.groupRoles))];
  const missing = roles.length > 0 ? await scimRoleStore.missingRoles(deps.db.pool, roles) : [];
  if (missing.length > 0) {
    deps.logger.warn(
      { roles: missing },
      'SCIM_GROUP_ROLES names roles that do not exist; they are not granted',
    );
  }
  const { granted, revoked } = await deps.db.transaction(async (tx) => {
    await scimUserStore.lockAll(tx);
    return scimRoleStore.sync(tx, null, deps.groupRoles);
  });
  const audit = (kind: string, change: { userId: string; role: string }) =>
    deps.audit.writeLater({
      kind,
      actor: 'config',
      payload: { ...change, via: 'scim', setting: 'SCIM_GROUP_ROLES' },
    });
  for (const change of granted) audit('auth.role.granted', change);
  for (const change of revoked) audit('auth.role.revoked', change);
  if (granted.length + revoked.length > 0) {
    deps.logger.info(
      { granted: granted.length, revoked: revoked.length },
      'SCIM group roles brought in line with SCIM_GROUP_ROLES',
    );
  }
}
