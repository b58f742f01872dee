import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { mayUsePassword, type AuthDeployment } from '../deployment/validate.ts';
import { passwordChangeSchema, registrationSchema } from '../domain/requests.ts';
import { authErrors } from '../errors.ts';
import { webSessions } from './web-session.ts';
import { createNewPasswordHasher } from '../service/new-password.ts';
import type { PasswordHasher } from '../service/password-hasher.ts';
import type { Throttle } from '../service/throttle.ts';
import type { AttemptScope } from '../store/attempt-store.ts';
import { sessionStore } from '../store/session-store.ts';
import { userStore } from '../store/user-store.ts';

/** Self-registration and password change (README, "Routes" and "Modes"). */
export function registerAccountRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: {
    deployment: AuthDeployment;
    hasher: PasswordHasher;
    denylist: ReadonlySet<string>;
    throttle: Throttle;
  },
): void {
  const webSession = webSessions(ctx);
  const newPasswordHash = createNewPasswordHasher({
    db: ctx.db,
    hasher: deps.hasher,
    denylist: deps.denylist,
  });

  ctx.routes.add({
    method: 'POST',
    path: '/auth/register',
    exempt: true,
    schema: { body: registrationSchema },
    handler: async (req, res, { body }) => {
      // README, "Modes": off in oidc mode whatever the toggle; otherwise per the admin toggle.
      if (deps.deployment.registration === 'off' || !(await userStore.registrationEnabled(ctx.db.pool))) {
        throw authErrors.create('auth.register.disabled');
      }
      // Every attempt counts against the client's allowance (registration floods are the concern), counted
      // before the work so a parallel burst gets no more than a series.
      const keys: Array<[AttemptScope, string]> = [['register:ip', req.ip ?? 'unknown']];
      await deps.throttle.reserve(keys);
      const hash = await newPasswordHash(body.password, body.email);
      // The unique index decides between concurrent registrations of one email: exactly one wins.
      const created = await userStore.insertLocal(ctx.db.pool, body.email, hash);
      if (!created) throw authErrors.create('auth.register.email_taken');
      const user = { id: created.id, email: body.email, roles: [] };
      const session = await webSession.start(req, res, user);
      ctx.audit.writeLater({
        kind: 'auth.register',
        actor: user.id,
        requestId: req.gatehouse.id,
        ip: req.ip ?? null,
        payload: { provider: 'local', via: 'self' },
      });
      res.status(201).json({ user, expiresAt: session.expiresAt });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/password',
    exempt: true,
    schema: { body: passwordChangeSchema },
    handler: async (req, res, { body }) => {
      const identity = await webSession.ownFromCookie(req, { changes: true });
      const user = await userStore.findById(ctx.db.pool, identity.sub);
      if (!user?.passwordHash || user.disabledAt !== null) throw authErrors.create('auth.session.missing');
      // README, "Modes": in oidc mode the password endpoints are closed but to break-glass admins. The
      // roles are the resolved identity's: the account's current ones.
      if (!mayUsePassword(deps.deployment.password, identity.roles))
        throw authErrors.create('auth.password.disabled');
      if (!(await deps.hasher.verify(user.passwordHash, body.currentPassword)))
        throw authErrors.create('auth.password.current_wrong');
      const hash = await newPasswordHash(body.newPassword, user.email);
      // The current session stays, every other session of the user is revoked: whoever may have learnt the
      // old password is signed out everywhere, while the user who changed it is not (README, "Web sessions").
      const revoked = await ctx.db.transaction(async (tx) => {
        await userStore.setPasswordHash(tx, user.id, hash);
        return sessionStore.revokeAllForUser(tx, user.id, 'password changed', identity.sid);
      });
      const where = { requestId: req.gatehouse.id, ip: req.ip ?? null };
      ctx.audit.writeLater({
        kind: 'auth.password.changed',
        actor: user.id,
        ...where,
        payload: { revokedSessions: revoked },
      });
      if (revoked > 0)
        ctx.audit.writeLater({
          kind: 'auth.session.revoked',
          actor: user.id,
          ...where,
          payload: { reason: 'password changed', count: revoked },
        });
      res.status(204).end();
    },
  });
}
