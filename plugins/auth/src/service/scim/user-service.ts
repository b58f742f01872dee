import type { Queryable } from '../../../../../gateway/src/plugin-api.ts';
import type { CanonicalEmail } from '../../domain/email.ts';
import { USER_RESOURCE } from '../../domain/scim/attributes.ts';
import { isScimId, type JsonObject } from '../../domain/scim/json.ts';
import { paging, userConditions, type ListQuery } from '../../domain/scim/list-query.ts';
import { applyPatch, patchOperations } from '../../domain/scim/patch.ts';
import { listResponse, renderUser } from '../../domain/scim/render.ts';
import { readResource } from '../../domain/scim/resource.ts';
import { accountEmail, userDocument, userFields } from '../../domain/scim/user-document.ts';
import { authErrors } from '../../errors.ts';
import { scimUserStore, type ScimUserRow } from '../../store/scim-user-store.ts';
import { applyActive } from './account-state.ts';
import { syncGroupRoles } from './role-sync.ts';
import {
  notFound,
  scimTransaction,
  uniqueness,
  type ScimCaller,
  type ScimChanges,
  type ScimDeps,
} from './scim-context.ts';

/**
 * SCIM Users (README, "SCIM provisioning"). A SCIM user is an account (provider `oidc`, no password,
 * directory-managed) plus what the directory says about it; its SCIM id is the account id. Every write is one
 * transaction that holds the user's lock, and is audited once it has committed.
 */
export function createScimUserService(deps: ScimDeps) {
  const render = async (db: Queryable, rows: ScimUserRow[]) => {
    const groups = await scimUserStore.groupsOf(
      db,
      rows.map((row) => row.userId),
    );
    return rows.map((row) =>
      renderUser(
        {
          id: row.userId,
          userName: row.userName,
          externalId: row.externalId,
          active: row.active,
          attributes: row.attributes,
          createdAt: row.createdAt,
          updatedAt: row.updatedAt,
          groups: groups.get(row.userId) ?? [],
        },
        deps.locations,
      ),
    );
  };
  const get = async (id: string): Promise<JsonObject> => {
    const row = isScimId(id) ? await scimUserStore.find(deps.db.pool, id.toLowerCase()) : null;
    if (!row) throw notFound('User');
    return (await render(deps.db.pool, [row]))[0] as JsonObject;
  };
  /** PUT and PATCH: the user locked, the new resource computed from it, written as one change. */
  const rewrite = async (
    id: string,
    caller: ScimCaller,
    next: (current: ScimUserRow) => JsonObject,
  ): Promise<JsonObject> => {
    if (!isScimId(id)) throw notFound('User');
    const userId = id.toLowerCase();
    await scimTransaction(deps, caller, async (tx, changes) => {
      const current = await scimUserStore.lock(tx, userId);
      if (!current) throw notFound('User');
      await writeUser(tx, deps, current, next(current), changes);
    });
    return get(userId);
  };

  return {
    get,

    async list(query: ListQuery): Promise<JsonObject> {
      const { startIndex, count } = paging(query);
      const conditions = userConditions(query.filter);
      if (conditions.none) return listResponse(0, startIndex, []);
      const { total, rows } = await scimUserStore.list(deps.db.pool, conditions.where, startIndex - 1, count);
      return listResponse(total, startIndex, await render(deps.db.pool, rows));
    },

    async create(body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const document = readResource(USER_RESOURCE, body);
      const email = requireEmail(document);
      const userId = await scimTransaction(deps, caller, (tx, changes) =>
        createUser(tx, deps, document, email, changes),
      );
      return get(userId);
    },

    replace(id: string, body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const document = readResource(USER_RESOURCE, body);
      return rewrite(id, caller, () => document);
    },

    patch(id: string, body: unknown, caller: ScimCaller): Promise<JsonObject> {
      const operations = patchOperations(body);
      return rewrite(id, caller, (current) =>
        readResource(USER_RESOURCE, applyPatch(USER_RESOURCE, userDocument(current), operations)),
      );
    },

    /**
     * DELETE: the user is gone for SCIM (404 from now on, its userName free again, out of every group) and its
     * account is deactivated, not deleted: its audit trail and references stay.
     */
    async remove(id: string, caller: ScimCaller): Promise<void> {
      if (!isScimId(id)) throw notFound('User');
      const userId = id.toLowerCase();
      await scimTransaction(deps, caller, async (tx, changes) => {
        const current = await scimUserStore.lock(tx, userId);
        if (!current) throw notFound('User');
        const now = deps.clock.now();
        const state = await applyActive(tx, current, false, now, changes);
        await scimUserStore.markDeleted(tx, userId, now, state.disabledByScim);
        await syncGroupRoles(tx, deps.groupRoles, [userId], changes);
        changes.event('auth.scim.user.deactivated', {
          userId,
          via: 'delete',
          wasActive: current.active,
          revokedSessions: state.revokedSessions,
        });
      });
    },
  };
}

export type ScimUserService = ReturnType<typeof createScimUserService>;

function requireEmail(document: JsonObject): CanonicalEmail {
  const email = accountEmail(document);
  if (email === null) {
    throw authErrors.create('auth.scim.invalid_value', {
      detail: 'A user needs an email address: in emails (the primary one is used), or as its userName',
    });
  }
  return email;
}

/**
 * A new SCIM user. Its account is new, or one single sign-on made before SCIM knew the person (provider
 * `oidc`, not managed by SCIM now), which SCIM takes over. An account with a password or from LDAP is never
 * taken over: 409 uniqueness.
 */
async function createUser(
  tx: Queryable,
  deps: ScimDeps,
  document: JsonObject,
  email: CanonicalEmail,
  changes: ScimChanges,
): Promise<string> {
  const fields = userFields(document);
  const active = fields.active ?? true;
  const now = deps.clock.now();
  if (await scimUserStore.userNameTaken(tx, fields.userNameKey, null)) throw uniqueness('userName');
  const existing = await scimUserStore.accountByEmail(tx, email);
  let userId: string;
  let disabledByScim = !active;
  if (existing) {
    if (existing.managed || existing.provider !== 'oidc') throw uniqueness('email');
    userId = existing.id;
    await scimUserStore.adoptAccount(tx, userId);
    const state = await applyActive(tx, { ...existing, userId }, active, now, changes);
    disabledByScim = state.disabledByScim;
  } else {
    const made = await scimUserStore.insertAccount(tx, email, active ? null : now);
    if (made === null) throw uniqueness('email');
    userId = made;
  }
  await scimUserStore.upsert(tx, userId, { ...fields, active, disabledByScim }, now);
  changes.account(userId);
  changes.event('auth.scim.user.created', { userId, active, adopted: existing !== null });
  return userId;
}

/** A PUT or PATCH result written over the current user: columns, account email, account state. */
async function writeUser(
  tx: Queryable,
  deps: ScimDeps,
  current: ScimUserRow,
  document: JsonObject,
  changes: ScimChanges,
): Promise<void> {
  const fields = userFields(document);
  const active = fields.active ?? current.active;
  const now = deps.clock.now();
  const userId = current.userId;
  if (await scimUserStore.userNameTaken(tx, fields.userNameKey, userId)) throw uniqueness('userName');
  const email = requireEmail(document);
  if (email !== current.email) {
    await scimUserStore.setAccountEmail(tx, userId, email);
    changes.account(userId);
  }
  let disabledByScim = current.disabledByScim;
  if (active !== current.active) {
    const state = await applyActive(tx, { ...current, userId }, active, now, changes);
    disabledByScim = state.disabledByScim;
    changes.event(active ? 'auth.scim.user.reactivated' : 'auth.scim.user.deactivated', {
      userId,
      via: 'active',
      ...(active ? { accountEnabled: state.enabled } : { revokedSessions: state.revokedSessions }),
    });
  }
  await scimUserStore.update(tx, userId, { ...fields, active, disabledByScim }, now);
  const changed = changedAttributes(userDocument(current), { ...document, active });
  if (changed.length > 0) changes.event('auth.scim.user.updated', { userId, changed });
}

/** The names of the top-level attributes whose values differ (`active` is audited on its own). */
function changedAttributes(before: JsonObject, after: JsonObject): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  names.delete('active');
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name])).sort();
}
