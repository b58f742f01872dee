import type { Request } from 'express';
import type { PluginContext, SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { authErrors } from '../errors.ts';
import { webSessions } from './web-session.ts';
import { ACCOUNT_ADMIN_ROLES } from '../domain/roles.ts';
import { settingsPatchSchema, userIdParams, userRoleParams, userSearchQuery } from '../domain/requests.ts';
import type { AccountCache } from '../service/account-cache.ts';
import { factorStore } from '../store/factor-store.ts';
import { sessionStore } from '../store/session-store.ts';
import { totpStore } from '../store/totp-store.ts';
import { userStore, type UserRow } from '../store/user-store.ts';

/** A user as the admin API shows it: never the password hash. */
function view(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    provider: user.provider,
    directoryManaged: user.directoryManaged,
    disabled: user.disabledAt !== null,
    roles: user.roles,
  };
}

/**
 * The accounts' admin API (README, "Routes"): gated routes for the wildcard admin or `users:admin`. The
 * caller is the identity gate layer 2 verified (a signed dashboard request), or the session cookie of a
 * browser; a cookie-authenticated change must also come from APP_BASE_URL's origin.
 */
export function registerAccountAdminRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: { accounts: Pick<AccountCache, 'invalidate'> },
): void {
  const webSession = webSessions(ctx);
  // Every replica hears of a change through `auth_account_changed` once it commits; this replica also
  // forgets the account before answering, so the admin's next request already sees the change.
  const changed = (userId: string) => deps.accounts.invalidate(userId);

  const admin = async (req: Request, changes: boolean): Promise<SessionIdentity> => {
    const identity = req.identity ?? (await webSession.fromCookie(req, { changes }));
    // The identity is the one the core resolved (README, "Sessions and current roles"): for the
    // gateway's own sessions, the account's roles as they are now, so a role revoked a minute ago is gone.
    if (!identity.roles.some((role) => ACCOUNT_ADMIN_ROLES.includes(role)))
      throw authErrors.create('auth.forbidden');
    return identity;
  };
  const audited = (req: Request, actor: SessionIdentity, kind: string, payload: Record<string, unknown>) =>
    ctx.audit.writeLater({
      kind,
      actor: actor.sub,
      requestId: req.gatehouse.id,
      ip: req.ip ?? null,
      payload,
    });
  const found = async (id: string) => {
    const user = await userStore.findById(ctx.db.pool, id);
    if (!user) throw authErrors.create('auth.user.not_found');
    return user;
  };

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/users',
    sensitive: true,
    schema: { query: userSearchQuery },
    handler: async (req, res, { query }) => {
      await admin(req, false);
      const { total, users } = await userStore.search(ctx.db.pool, query.search, query.limit, query.offset);
      res.json({ total, users: users.map(view) });
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/users/:id',
    sensitive: true,
    schema: { params: userIdParams },
    handler: async (req, res, { params }) => {
      await admin(req, false);
      res.json(view(await found(params.id)));
    },
  });

  ctx.routes.add({
    method: 'PUT',
    path: '/api/v1/admin/users/:id/roles/:role',
    schema: { params: userRoleParams },
    handler: async (req, res, { params }) => {
      const actor = await admin(req, true);
      await found(params.id);
      if (!(await userStore.roleExists(ctx.db.pool, params.role)))
        throw authErrors.create('auth.role.unknown');
      if (await userStore.grantRole(ctx.db.pool, params.id, params.role, actor.sub)) {
        changed(params.id);
        audited(req, actor, 'auth.role.granted', { userId: params.id, role: params.role });
      }
      res.json(view(await found(params.id)));
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/admin/users/:id/roles/:role',
    schema: { params: userRoleParams },
    handler: async (req, res, { params }) => {
      const actor = await admin(req, true);
      await found(params.id);
      if (await userStore.revokeRole(ctx.db.pool, params.id, params.role)) {
        changed(params.id);
        audited(req, actor, 'auth.role.revoked', { userId: params.id, role: params.role });
      }
      res.json(view(await found(params.id)));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/admin/users/:id/disable',
    schema: { params: userIdParams },
    handler: async (req, res, { params }) => {
      const actor = await admin(req, true);
      await found(params.id);
      const revoked = await ctx.db.transaction(async (tx) => {
        await userStore.disable(tx, params.id, ctx.clock.now());
        return sessionStore.revokeAllForUser(tx, params.id, 'account disabled');
      });
      changed(params.id);
      audited(req, actor, 'auth.user.disabled', { userId: params.id, revokedSessions: revoked });
      if (revoked > 0)
        audited(req, actor, 'auth.session.revoked', {
          userId: params.id,
          reason: 'account disabled',
          count: revoked,
        });
      res.json(view(await found(params.id)));
    },
  });

  // README, "Recovery": an administrator removes a user's authenticator app (never their passkeys); the user
  // enrolls again at the next sign-in. A directory-managed account's second factor is the identity provider's.
  ctx.routes.add({
    method: 'DELETE',
    path: '/admin/users/:id/totp',
    schema: { params: userIdParams },
    handler: async (req, res, { params }) => {
      const actor = await admin(req, true);
      const user = await found(params.id);
      if (user.directoryManaged) throw authErrors.create('auth.totp.directory_managed');
      const removed = await ctx.db.transaction(async (tx) => {
        if (!(await totpStore.remove(tx, user.id))) return false;
        await factorStore.setEnrollmentRequired(tx, user.id, true);
        return true;
      });
      if (!removed) throw authErrors.create('auth.totp.not_enrolled');
      audited(req, actor, 'auth.totp.admin_reset', { userId: user.id });
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/admin/settings',
    handler: async (req, res) => {
      await admin(req, false);
      res.json(await userStore.settings(ctx.db.pool));
    },
  });

  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/admin/settings',
    schema: { body: settingsPatchSchema },
    handler: async (req, res, { body }) => {
      const actor = await admin(req, true);
      await userStore.updateSettings(ctx.db.pool, body);
      audited(req, actor, 'auth.settings.changed', { changes: body });
      res.json(await userStore.settings(ctx.db.pool));
    },
  });
}
