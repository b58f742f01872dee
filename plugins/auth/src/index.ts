import { definePlugin, migrationsDir } from '../../../gateway/src/plugin-api.ts';
import { createAdminCommand } from './cli/create-admin.ts';
import { deploymentInput } from './config.ts';
import { validateAuthDeployment } from './deployment/validate.ts';
import { authErrors } from './errors.ts';
import { authManifest } from './manifest.ts';
import { loadDenylist } from './policy/password-policy.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerAdminRoutes } from './routes/admin-routes.ts';
import { registerSessionRoutes } from './routes/session-routes.ts';
import { createDirectory } from './service/directory.ts';
import { createLoginService } from './service/login.ts';
import { createPasswordHasher } from './service/password-hasher.ts';
import { createAccountCache } from './service/accounts.ts';
import { createRevocationSet } from './service/revocations.ts';
import { createSessionResolver } from './service/session-resolver.ts';
import { startSessionSync } from './service/session-sync.ts';
import { createThrottle } from './service/throttle.ts';

/** Accounts whose current roles a replica keeps in memory (a few hundred bytes each). */
const ACCOUNT_CACHE_ENTRIES = 50_000;

/**
 * Sign-in (document 000): local passwords, LDAP, OIDC single sign-on, passkeys, TOTP, break-glass admins,
 * sessions. AUTH_MODE selects which sign-in methods load (deployment/validate.ts).
 *
 * Built so far: the deployment settings and their boot rules, the account tables, argon2id hashing and
 * `gatehouse admin create`. Password sign-in, sessions, LDAP and the admin API arrive with issue 4's
 * remaining steps; OIDC, TOTP, passkeys and break-glass later.
 */
export const authPlugin = definePlugin({
  ...authManifest,
  migrations: migrationsDir('auth'),
  errors: authErrors,
  commands: [createAdminCommand],
  async register(ctx) {
    // The schema already refused a bad deployment at boot; this resolves what the mode turns on.
    const verdict = validateAuthDeployment(deploymentInput(ctx.config));
    if (!verdict.ok) throw new Error(verdict.problems.map((p) => `${p.variable}: ${p.message}`).join('; '));
    const deployment = verdict.value;

    // Revoked server-side sessions are refused at the API gate and in the realtime handshake
    // (DECISIONS.md, "Sessions"), synchronously, from a set every replica keeps current; and a session
    // carries its account's current roles, not the ones copied into its token (README, "Sessions and
    // current roles"), from a cache every replica keeps current the same way.
    const revocations = createRevocationSet({ db: ctx.db, clock: ctx.clock });
    const accounts = createAccountCache({ db: ctx.db, maxEntries: ACCOUNT_CACHE_ENTRIES });
    const sync = await startSessionSync({ db: ctx.db, logger: ctx.logger, revocations, accounts }).catch(
      (err: unknown) => {
        revocations.stop();
        throw err;
      },
    );
    ctx.hooks.sessionCheck((identity) => identity.sid === null || !revocations.has(identity.sid));
    ctx.hooks.sessionResolver(createSessionResolver(accounts));
    ctx.hooks.onClose(async () => {
      revocations.stop();
      await sync.stop();
    });

    const hasher = await createPasswordHasher({
      maxConcurrent: ctx.config.LOGIN_MAX_CONCURRENT_HASHES,
      maxWaitMs: ctx.config.LOGIN_HASH_WAIT_MS,
    });
    const backoff = {
      windowSeconds: ctx.config.ATTEMPT_WINDOW_SECONDS,
      baseSeconds: 1,
      maxSeconds: ctx.config.ATTEMPT_MAX_DELAY_SECONDS,
    };
    const throttle = createThrottle({
      db: ctx.db,
      clock: ctx.clock,
      rules: {
        account: { ...backoff, free: ctx.config.LOGIN_FREE_FAILURES_PER_ACCOUNT },
        ip: { ...backoff, free: ctx.config.LOGIN_FREE_FAILURES_PER_IP },
        register: { ...backoff, free: ctx.config.REGISTER_FREE_ATTEMPTS_PER_IP },
      },
    });
    const config = ctx.config;
    const directory =
      deployment.ldap &&
      config.LDAP_URL &&
      config.LDAP_USER_BASE &&
      config.LDAP_BIND_DN &&
      config.LDAP_BIND_PASSWORD
        ? {
            service: createDirectory({
              url: config.LDAP_URL,
              bindDn: config.LDAP_BIND_DN,
              bindPassword: config.LDAP_BIND_PASSWORD,
              userBase: config.LDAP_USER_BASE,
              userFilter: config.LDAP_USER_FILTER,
              groupBase: config.LDAP_GROUP_BASE,
              startTls: config.LDAP_START_TLS,
              timeoutMs: config.LDAP_TIMEOUT_MS,
            }),
            groupRoles: config.LDAP_GROUP_ROLES,
          }
        : undefined;
    registerSessionRoutes(ctx, {
      login: createLoginService({ db: ctx.db, hasher, deployment, directory, accounts }),
      throttle,
    });
    registerAccountRoutes(ctx, { deployment, hasher, denylist: loadDenylist(), throttle });
    registerAdminRoutes(ctx, { accounts });
    ctx.logger.info(
      {
        authMode: deployment.mode,
        fallback: deployment.fallback,
        passwordLogin: deployment.password,
        registration: deployment.registration,
        ldap: deployment.ldap,
        oidc: deployment.oidc,
        passkeys: deployment.webauthn !== null,
      },
      'auth deployment',
    );
  },
});
