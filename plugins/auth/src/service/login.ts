import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { mayUsePassword, type AuthDeployment } from '../deployment/validate.ts';
import { canonicalEmail, type CanonicalEmail } from '../domain/email.ts';
import { userStore, type UserRow } from '../store/user-store.ts';
import type { AccountCache } from './account-cache.ts';
import type { DirectorySignIn } from './directory.ts';
import type { PasswordHasher } from './password-hasher.ts';

/** Why a login failed; audited, never sent to the client (README, "Sign-in failures"). */
export type LoginFailure =
  | 'unknown_email'
  | 'wrong_password'
  | 'no_password'
  | 'demo_account'
  | 'disabled'
  | 'mode'
  | 'directory_rejected';

/**
 * A correct password. `method`: whose password it was (the gateway's or the directory's). `breakGlass`: a local
 * password accepted only because the account holds the wildcard role (oidc mode, LDAP_MODE=only): such a sign-in
 * always needs a second factor (README, "Break-glass").
 */
export type LoginSuccess = { ok: true; user: UserRow; method: 'password' | 'ldap'; breakGlass: boolean };
export type LoginResult = LoginSuccess | { ok: false; reason: LoginFailure; userId: string | null };

/**
 * Password sign-in with equal effort (README, "Sign-in failures"): whatever the case (unknown email, wrong
 * password, no password, the demo convention, a mode that refuses password logins), exactly one argon2
 * verification runs, and the checks that do not need the hash come after it, so response times do not
 * tell the cases apart. The route answers all of them with one generic error.
 */
export function createLoginService(deps: {
  db: Database;
  hasher: PasswordHasher;
  deployment: AuthDeployment;
  /** With LDAP_ENABLED: the directory and its group → role map. */
  directory?: DirectorySignIn | undefined;
  /** This replica's cache of current roles, told when a directory login changed them. */
  accounts: Pick<AccountCache, 'invalidate'>;
}) {
  /**
   * Directory sign-in (README, "LDAP sign-in"): for emails without a local account, and for
   * directory-managed accounts. The first success provisions a local account flagged directory-managed;
   * every success syncs the roles its groups map to.
   */
  const directoryLogin = async (
    email: CanonicalEmail,
    password: string,
    existing: UserRow | null,
  ): Promise<LoginResult> => {
    const directory = deps.directory;
    if (!directory) return { ok: false, reason: 'unknown_email', userId: null };
    const entry = await directory.service.authenticate(email, password);
    if (!entry)
      return {
        ok: false,
        reason: existing ? 'wrong_password' : 'directory_rejected',
        userId: existing?.id ?? null,
      };
    const userId = existing?.id ?? (await userStore.provisionDirectoryUser(deps.db.pool, email));
    const roles = [...new Set(entry.groups.flatMap((group) => directory.groupRoles[group] ?? []))];
    await userStore.syncDirectoryRoles(deps.db.pool, userId, roles);
    deps.accounts.invalidate(userId);
    const user = await userStore.findById(deps.db.pool, userId);
    if (!user) return { ok: false, reason: 'unknown_email', userId: null };
    if (user.disabledAt !== null) return { ok: false, reason: 'disabled', userId };
    return { ok: true, user, method: 'ldap', breakGlass: false };
  };

  return {
    async login(email: CanonicalEmail, password: string): Promise<LoginResult> {
      const user = await userStore.findByEmail(deps.db.pool, email);
      if (deps.directory && deps.deployment.ldap && (!user || user.directoryManaged))
        return directoryLogin(email, password, user);
      const matches = user?.passwordHash
        ? await deps.hasher.verify(user.passwordHash, password)
        : await deps.hasher.verifyNothing(password);
      const userId = user?.id ?? null;
      if (!user) return { ok: false, reason: 'unknown_email', userId };
      if (!user.passwordHash) return { ok: false, reason: 'no_password', userId };
      if (!matches) return { ok: false, reason: 'wrong_password', userId };
      // A password equal to the email is the demo convention, treated as no password (README, "Sign-in
      // failures"): seeded demo accounts must not open a deployment.
      if (canonicalEmail(password) === user.email) return { ok: false, reason: 'demo_account', userId };
      if (user.disabledAt !== null) return { ok: false, reason: 'disabled', userId };
      // README, "Modes": in oidc mode (and with LDAP_MODE=only) only wildcard admins (break-glass) sign in with a
      // local password, and nobody when AUTH_BREAK_GLASS=false.
      if (!mayUsePassword(deps.deployment.password, user.roles)) return { ok: false, reason: 'mode', userId };
      if (deps.hasher.needsRehash(user.passwordHash)) {
        await userStore.setPasswordHash(deps.db.pool, user.id, await deps.hasher.hash(password));
      }
      return {
        ok: true,
        user,
        method: 'password',
        breakGlass: deps.deployment.password === 'break-glass-admins',
      };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
