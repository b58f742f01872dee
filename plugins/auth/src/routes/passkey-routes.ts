import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { passkeyIdParams, passkeyRenameSchema } from '../domain/passkey-requests.ts';
import { authErrors } from '../errors.ts';
import { passkeyStore } from '../store/passkey-store.ts';
import { auditor } from './factor-route-deps.ts';
import { registerPasskeyRegistrationRoutes } from './passkey-registration-routes.ts';
import type { PasskeyRouteDeps } from './passkey-route-deps.ts';
import { registerPasskeySignInRoutes } from './passkey-sign-in-routes.ts';

/**
 * Passkeys (README, "Passkeys"): the registration and sign-in ceremonies, and the signed-in account's own list,
 * rename and removal. The ceremonies answer 404 `auth.passkey.unavailable` when passkeys are off; the list, rename
 * and removal keep working then, so an account can still see and remove passkeys made while they were on.
 */
export function registerPasskeyRoutes(ctx: PluginContext<AuthEnv>, deps: PasskeyRouteDeps): void {
  const audit = auditor(ctx);
  registerPasskeyRegistrationRoutes(ctx, deps);
  registerPasskeySignInRoutes(ctx, deps);

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/auth/passkeys',
    exempt: true,
    handler: async (req, res) => {
      const { userId } = await deps.principals.reading(req);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ passkeys: await passkeyStore.list(ctx.db.pool, userId) });
    },
  });

  // Renaming changes no factor: the session is enough.
  ctx.routes.add({
    method: 'PATCH',
    path: '/api/v1/auth/passkeys/:id',
    exempt: true,
    schema: { params: passkeyIdParams, body: passkeyRenameSchema },
    handler: async (req, res, { params, body }) => {
      const identity = await deps.webSession.ownFromCookie(req, { changes: true });
      const passkey = await passkeyStore.rename(ctx.db.pool, identity.sub, params.id, body.name);
      if (!passkey) throw authErrors.create('auth.passkey.not_found');
      audit(req, 'auth.passkey.renamed', identity.sub, { passkeyId: passkey.id });
      res.json(passkey);
    },
  });

  // Removing a factor needs a recent one (README, "Second factors"), so a stolen cookie cannot strip the account.
  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/auth/passkeys/:id',
    exempt: true,
    schema: { params: passkeyIdParams },
    handler: async (req, res, { params }) => {
      const principal = await deps.principals.changing(req);
      if (!(await passkeyStore.remove(ctx.db.pool, principal.userId, params.id)))
        throw authErrors.create('auth.passkey.not_found');
      audit(req, 'auth.passkey.removed', principal.userId, { passkeyId: params.id, by: 'self' });
      res.status(204).end();
    },
  });
}
