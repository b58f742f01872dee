import { definePlugin, migrationsDir } from '../../../gateway/src/plugin-api.ts';
import { createAdminCommand } from './cli/create-admin.ts';
import { deploymentOf } from './config.ts';
import { authErrors } from './errors.ts';
import { authManifest } from './manifest.ts';
import { registerAccountAdminRoutes } from './routes/account-admin-routes.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerPageRoutes } from './routes/page-routes.ts';
import { registerSessionRoutes } from './routes/session-routes.ts';
import { directoryFromConfig } from './service/directory.ts';
import { createLoginService } from './service/login.ts';
import { loadDenylist } from './service/password-denylist.ts';
import { createPasswordHasher } from './service/password-hasher.ts';
import { createSessionResolver } from './service/session-resolver.ts';
import { startSessionState } from './service/session-state.ts';
import { createThrottle, throttleRules } from './service/throttle.ts';

/**
 * Sign-in: local passwords, LDAP and server-side sessions today; OIDC single sign-on, passkeys, TOTP and
 * break-glass second factors are planned (plugins/auth/README.md says what is built). AUTH_MODE selects
 * which sign-in methods load (deployment/validate.ts).
 */
export const authPlugin = definePlugin({
  ...authManifest,
  migrations: migrationsDir('auth'),
  errors: authErrors,
  commands: [createAdminCommand],
  async register(ctx) {
    const deployment = deploymentOf(ctx.config);

    // Revoked sessions are refused at the API gate and in the realtime handshake, and a session carries its
    // account's current roles (README, "Sessions and current roles"): both from this replica's memory.
    const sessionState = await startSessionState({ db: ctx.db, clock: ctx.clock, logger: ctx.logger });
    ctx.hooks.sessionCheck(sessionState.notRevoked);
    ctx.hooks.sessionResolver(createSessionResolver(sessionState.accounts));
    ctx.hooks.onClose(sessionState.stop);

    const hasher = await createPasswordHasher({
      maxConcurrent: ctx.config.LOGIN_MAX_CONCURRENT_HASHES,
      maxWaitMs: ctx.config.LOGIN_HASH_WAIT_MS,
    });
    const throttle = createThrottle({ db: ctx.db, clock: ctx.clock, rules: throttleRules(ctx.config) });
    const directory = directoryFromConfig(ctx.config, deployment);
    const accounts = sessionState.accounts;
    registerSessionRoutes(ctx, {
      login: createLoginService({ db: ctx.db, hasher, deployment, directory, accounts }),
      throttle,
    });
    registerAccountRoutes(ctx, { deployment, hasher, denylist: loadDenylist(), throttle });
    registerAccountAdminRoutes(ctx, { accounts });
    registerPageRoutes(ctx, deployment);
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
