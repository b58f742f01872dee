import type { Request } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { mayUsePassword, type AuthDeployment } from '../deployment/validate.ts';
import { authErrors } from '../errors.ts';
import type { Passkeys } from '../service/passkeys.ts';
import type { Attempt } from '../service/throttle.ts';
import { userStore, type UserRow } from '../store/user-store.ts';
import type { FactorRouteDeps } from './factor-route-deps.ts';

/** What the passkey routes share: the second-factor routes' dependencies and the passkeys, null when off. */
export interface PasskeyRouteDeps extends FactorRouteDeps {
  passkeys: Passkeys | null;
}

/** The passkeys of the deployment, or 404 `auth.passkey.unavailable` when no relying party resolved. */
export function availablePasskeys(deps: PasskeyRouteDeps): Passkeys {
  if (!deps.passkeys) throw authErrors.create('auth.passkey.unavailable');
  return deps.passkeys;
}

/**
 * The account that may register a passkey: not a directory-managed one, whose sign-in and second factor belong to
 * the directory (a passkey would let in someone the directory has disabled), and one that could sign in with it in
 * this mode — in oidc mode and with LDAP_MODE=only, a break-glass admin (README, "Passkeys").
 */
export async function passkeyHolder(
  ctx: PluginContext<AuthEnv>,
  deployment: AuthDeployment,
  userId: string,
): Promise<UserRow> {
  const user = await userStore.findById(ctx.db.pool, userId);
  if (!user) throw authErrors.create('auth.session.missing');
  if (user.directoryManaged) throw authErrors.create('auth.passkey.directory_managed');
  if (!mayUsePassword(deployment.password, user.roles)) throw authErrors.create('auth.passkey.not_allowed');
  return user;
}

/** Several attempts on the limits as one: given back, or kept, together. */
export function jointAttempt(...attempts: Attempt[]): Attempt {
  return {
    async succeeded() {
      for (const attempt of attempts) await attempt.succeeded();
    },
    async abandoned() {
      for (const attempt of attempts) await attempt.abandoned();
    },
  };
}

/** The client address a request is counted under. */
export function clientAddress(req: Request): string {
  return req.ip ?? 'unknown';
}
