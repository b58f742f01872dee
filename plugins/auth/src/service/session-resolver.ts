import type { SessionIdentity, SessionResolver } from '../../../../gateway/src/plugin-api.ts';
import { isUserId } from '../domain/user-id.ts';
import type { LiveAccount } from '../store/user-store.ts';
import type { AccountCache } from './account-cache.ts';

/**
 * The auth plugin's answer to "who is behind this session, now?" (README, "Sessions and current roles"),
 * registered as the core's session resolver so the gate, `ctx.sessions.verify` and every plugin see it.
 *
 * - The gateway's own sessions (tokens with a `sid`, minted at sign-in): the account's current email and
 *   roles, never the copy made into the token at sign-in; a disabled or missing account is rejected, and
 *   so is a `sub` that is not an account id. Answered synchronously when the account is cached.
 * - Tokens without a `sid`, minted by an external dashboard that holds AUTH_SECRET: their claims are the
 *   dashboard's word, roles included, and pass unchanged.
 */
export function createSessionResolver(accounts: AccountCache): SessionResolver {
  const current = (identity: SessionIdentity, account: LiveAccount | null): SessionIdentity | null =>
    account === null
      ? null
      : { sub: identity.sub, email: account.email, roles: account.roles, sid: identity.sid };
  return (identity) => {
    if (identity.sid === null) return identity;
    if (!isUserId(identity.sub)) return null;
    const known = accounts.peek(identity.sub);
    if (known !== undefined) return current(identity, known);
    return accounts.load(identity.sub).then((account) => current(identity, account));
  };
}
