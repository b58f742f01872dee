import {
  definePlugin,
  migrationsDir,
  type PluginContext,
  startFailureAudit,
} from '../../../gateway/src/plugin-api.ts';
import { createAdminCommand } from './cli/create-admin.ts';
import { scimTokenCommands } from './cli/scim-token.ts';
import { deploymentOf } from './config.ts';
import { authErrors } from './errors.ts';
import { authManifest } from './manifest.ts';
import { registerAccountAdminRoutes } from './routes/account-admin-routes.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { scimAuthentication } from './routes/scim/scim-authentication.ts';
import { registerScimDiscoveryRoutes } from './routes/scim/scim-discovery-routes.ts';
import { registerScimResourceRoutes } from './routes/scim/scim-routes.ts';
import { SCIM_BASE_PATH, scimErrorFormat } from './routes/scim/scim-wire.ts';
import { registerSessionRoutes } from './routes/session-routes.ts';
import type { AccountCache } from './service/account-cache.ts';
import { directoryFromConfig } from './service/directory.ts';
import { createLoginService } from './service/login.ts';
import { loadDenylist } from './service/password-denylist.ts';
import { createPasswordHasher } from './service/password-hasher.ts';
import { createSessionResolver } from './service/session-resolver.ts';
import { createScimGroupService } from './service/scim/group-service.ts';
import { syncAllGroupRoles } from './service/scim/role-sync.ts';
import type { ScimDeps } from './service/scim/scim-context.ts';
import { createScimTokenAuthenticator } from './service/scim/token-authenticator.ts';
import { createScimUserService } from './service/scim/user-service.ts';
import { startSessionState } from './service/session-state.ts';
import { createThrottle, throttleRules, type Throttle } from './service/throttle.ts';
import type { AuthEnv } from './config.ts';

/**
 * Sign-in: local passwords, LDAP, server-side sessions and SCIM provisioning today; OIDC single sign-on,
 * passkeys, TOTP and break-glass second factors are planned (plugins/auth/README.md says what is built).
 * AUTH_MODE selects which sign-in methods load (deployment/validate.ts).
 */
export const authPlugin = definePlugin({
  ...authManifest,
  migrations: migrationsDir('auth'),
  errors: authErrors,
  commands: [createAdminCommand, ...scimTokenCommands],
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
    await registerScim(ctx, { accounts, throttle });
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

/**
 * SCIM 2.0 provisioning (README, "SCIM provisioning"): the Users, Groups and discovery endpoints behind a SCIM
 * bearer token, and, at boot, the group roles brought in line with SCIM_GROUP_ROLES.
 */
async function registerScim(
  ctx: PluginContext<AuthEnv>,
  deps: { accounts: Pick<AccountCache, 'invalidate'>; throttle: Throttle },
): Promise<void> {
  const scim: ScimDeps = {
    db: ctx.db,
    clock: ctx.clock,
    audit: ctx.audit,
    accounts: deps.accounts,
    groupRoles: ctx.config.SCIM_GROUP_ROLES,
    locations: { base: scimBase(ctx.config.APP_BASE_URL) },
  };
  await syncAllGroupRoles({ db: ctx.db, logger: ctx.logger, audit: ctx.audit, groupRoles: scim.groupRoles });
  const failures = startFailureAudit({
    audit: ctx.audit,
    clock: ctx.clock,
    onClose: (fn) => ctx.hooks.onClose(fn),
  });
  const common = {
    exempt: true,
    authenticate: scimAuthentication({
      tokens: createScimTokenAuthenticator({ db: ctx.db, clock: ctx.clock }),
      throttle: deps.throttle,
      failures,
    }),
    errorFormat: scimErrorFormat,
  } as const;
  registerScimResourceRoutes(ctx.routes, common, {
    users: createScimUserService(scim),
    groups: createScimGroupService(scim),
  });
  registerScimDiscoveryRoutes(ctx.routes, common, scim.locations);
}

/** Where the SCIM resources live, for `meta.location`: APP_BASE_URL's origin, else the path alone. */
function scimBase(appBaseUrl: string | undefined): string {
  if (appBaseUrl === undefined) return SCIM_BASE_PATH;
  try {
    return `${new URL(appBaseUrl).origin}${SCIM_BASE_PATH}`;
  } catch {
    return SCIM_BASE_PATH;
  }
}
