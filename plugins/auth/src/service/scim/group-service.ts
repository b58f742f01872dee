import type { Queryable } from '../../../../../gateway/src/plugin-api.ts';
import { GROUP_RESOURCE } from '../../domain/scim/attributes.ts';
import { groupDocument, groupFields, type GroupDocumentFields } from '../../domain/scim/group-document.ts';
import { isScimId, type JsonObject } from '../../domain/scim/json.ts';
import { groupConditions, paging, type ListQuery } from '../../domain/scim/list-query.ts';
import { applyPatch, patchOperations } from '../../domain/scim/patch.ts';
import { listResponse, renderGroup } from '../../domain/scim/render.ts';
import { readResource } from '../../domain/scim/resource.ts';
import { authErrors } from '../../errors.ts';
import { scimGroupStore, type ScimGroupRow } from '../../store/scim-group-store.ts';
import { scimUserStore } from '../../store/scim-user-store.ts';
import { syncGroupRoles } from './role-sync.ts';
import {
  notFound,
  scimTransaction,
  type ScimCaller,
  type ScimChanges,
  type ScimDeps,
} from './scim-context.ts';

/**
 * SCIM Groups (README, "SCIM provisioning"). Members are SCIM users; every change of a group's members or name
 * recomputes the roles SCIM_GROUP_ROLES gives the users concerned, in the same transaction. A write locks the
 * group, then every user it concerns in id order (the order every SCIM write locks users in).
 */
export function createScimGroupService(deps: ScimDeps) {
  const render = async (db: Queryable, rows: ScimGroupRow[], withMembers: boolean) => {
    const members = withMembers
      ? await scimGroupStore.members(
          db,
          rows.map((row) => row.id),
        )
      : undefined;
    return rows.map((row) =>
      renderGroup({ ...row, ...(members ? { members: members.get(row.id) ?? [] } : {}) }, deps.locations),
    );
  };
  const get = async (id: string, withMembers = true): Promise<JsonObject> => {
    const row = isScimId(id) ? await scimGroupStore.find(deps.db.pool, id.toLowerCase()) : null;
    if (!row) throw notFound('Group');
    return (await render(deps.db.pool, [row], withMembers))[0] as JsonObject;
  };
  const rewrite = async (
    id: string,
    caller: ScimCaller,
    next: (current: ScimGroupRow, memberIds: string[]) => GroupDocumentFields,
  ): Promise<JsonObject> => {
    if (!isScimId(id)) throw notFound('Group');
    const groupId = id.toLowerCase();
    await scimTransaction(deps, caller, async (tx, changes) => {
      const current = await scimGroupStore.lock(tx, groupId);
      if (!current) throw notFound('Group');
      const memberIds = await scimGroupStore.memberIds(tx, groupId);
      await writeGroup(tx, deps, current, memberIds, next(current, memberIds), changes);
    });
    return get(groupId);
  };

  return {
    get,

    async list(query: ListQuery, withMembers: boolean): Promise<JsonObject> {
      const { startIndex, count } = paging(query);
      const conditions = groupConditions(query.filter);
      if (conditions.none) return listResponse(0, startIndex, []);
      const { total, rows } = await scimGroupStore.list(
        deps.db.pool,
        conditions.where,
        startIndex - 1,
        count,
      );
      return listResponse(total, startIndex, await render(deps.db.pool, rows, withMembers));
    },

    async create(body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const fields = groupFields(readResource(GROUP_RESOURCE, body));
      const groupId = await scimTransaction(deps, caller, async (tx, changes) => {
        const group = await scimGroupStore.insert(tx, fields, deps.clock.now());
        await lockMembers(tx, fields.memberIds, fields.memberIds);
        await scimGroupStore.addMembers(tx, group.id, fields.memberIds);
        await syncGroupRoles(tx, deps.groupRoles, fields.memberIds, changes);
        changes.event('auth.scim.group.created', {
          groupId: group.id,
          displayName: group.displayName,
          members: fields.memberIds.length,
        });
        return group.id;
      });
      return get(groupId);
    },

    replace(id: string, body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const fields = groupFields(readResource(GROUP_RESOURCE, body));
      return rewrite(id, caller, () => fields);
    },

    patch(id: string, body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const operations = patchOperations(body);
      return rewrite(id, caller, (current, memberIds) =>
        groupFields(
          readResource(
            GROUP_RESOURCE,
            applyPatch(GROUP_RESOURCE, groupDocument(current, memberIds), operations),
          ),
        ),
      );
    },

    /** DELETE: the group and its memberships go; its members' roles are recomputed without it. */
    async remove(id: string, caller: ScimCaller): Promise<void> {
      if (!isScimId(id)) throw notFound('Group');
      const groupId = id.toLowerCase();
      await scimTransaction(deps, caller, async (tx, changes) => {
        const current = await scimGroupStore.lock(tx, groupId);
        if (!current) throw notFound('Group');
        const memberIds = await scimGroupStore.memberIds(tx, groupId);
        await scimUserStore.lockMany(tx, memberIds);
        await scimGroupStore.delete(tx, groupId);
        await syncGroupRoles(tx, deps.groupRoles, memberIds, changes);
        changes.event('auth.scim.group.deleted', {
          groupId,
          displayName: current.displayName,
          members: memberIds.length,
        });
      });
    },
  };
}

export type ScimGroupService = ReturnType<typeof createScimGroupService>;

/**
 * Locks every user a group change concerns and checks that the users being added are SCIM users (not deleted):
 * a member that is not one is 400 invalidValue, and nothing is written.
 */
async function lockMembers(
  tx: Queryable,
  concerned: readonly string[],
  added: readonly string[],
): Promise<string[]> {
  const live = new Set(await scimUserStore.lockMany(tx, [...new Set(concerned)].sort()));
  if (added.some((userId) => !live.has(userId))) {
    throw authErrors.create('auth.scim.invalid_value', {
      detail: 'A member is not a SCIM user of this gateway',
    });
  }
  return [...live];
}

/** A PUT or PATCH result written over the current group: name, external id and the members' difference. */
async function writeGroup(
  tx: Queryable,
  deps: ScimDeps,
  current: ScimGroupRow,
  currentMembers: readonly string[],
  next: GroupDocumentFields,
  changes: ScimChanges,
): Promise<void> {
  const before = new Set(currentMembers);
  const after = new Set(next.memberIds);
  const added = next.memberIds.filter((userId) => !before.has(userId));
  const removed = currentMembers.filter((userId) => !after.has(userId));
  const renamed = next.displayName !== current.displayName;
  // A new name may map to other roles: then every member, old and new, is concerned.
  const concerned = renamed ? [...before, ...after] : [...added, ...removed];
  const live = await lockMembers(tx, concerned, added);
  await scimGroupStore.update(tx, current.id, next, deps.clock.now());
  await scimGroupStore.removeMembers(tx, current.id, removed);
  await scimGroupStore.addMembers(tx, current.id, added);
  await syncGroupRoles(tx, deps.groupRoles, live, changes);
  const changed = [
    ...(renamed ? ['displayName'] : []),
    ...(next.externalId !== current.externalId ? ['externalId'] : []),
    ...(added.length + removed.length > 0 ? ['members'] : []),
  ];
  if (changed.length > 0) {
    changes.event('auth.scim.group.updated', {
      groupId: current.id,
      changed,
      added: added.length,
      removed: removed.length,
    });
  }
}
