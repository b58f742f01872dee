import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import type { IdentityProvider } from '../service/identity-provider.ts';
import { userStore } from '../store/user-store.ts';

/**
 * `GET /api/v1/auth/methods` (also `/auth/methods`): what a login page or an app may offer (README, "Discovery").
 * Public, so it carries nothing secret: the one client id, the authorize endpoint, the scopes. Conditional
 * requests get 304 on its ETag (the registration toggle is the only part that changes without a restart).
 */
export function registerMethodsRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: { deployment: AuthDeployment; provider: IdentityProvider | null },
): void {
  const { deployment, provider } = deps;
  const handler = async (req: Request, res: Response) => {
    const registration =
      deployment.registration === 'per-admin-toggle' && (await userStore.registrationEnabled(ctx.db));
    const body = JSON.stringify({
      modes: deployment.mode.split('+'),
      // The password form is for everyone when local passwords are, or when the directory's are (LDAP_MODE=only).
      password: deployment.password === 'everyone' || deployment.ldap,
      ldap: deployment.ldap,
      ldapOnly: deployment.ldapOnly,
      registration,
      // On when the relying party resolves and someone may sign in with one (README, "Passkeys").
      passkeys: deployment.webauthn !== null && deployment.password !== 'nobody',
      breakGlass: deployment.password === 'break-glass-admins',
      oidc: provider && {
        issuer: provider.issuer,
        authorizationEndpoint: provider.authorizationEndpoint,
        clientId: provider.clientId,
        scopes: provider.scopes,
        startUrl: '/auth/oidc/start',
      },
    });
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'no-cache');
    const matches = (req.get('if-none-match') ?? '').split(',').map((tag) => tag.trim());
    if (matches.includes(etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  };
  for (const path of ['/api/v1/auth/methods', '/auth/methods'])
    ctx.routes.add({ method: 'GET', path, exempt: true, handler });
}
