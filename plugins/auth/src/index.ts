import {
  BootError,
  definePlugin,
  isDevelopment,
  migrationsDir,
  type PluginContext,
  startFailureAudit,
  startLoop,
} from '../../../gateway/src/plugin-api.ts';
import { randomBytes } from 'node:crypto';
import { createAdminCommand } from './cli/create-admin.ts';
import { resetFactorsCommand } from './cli/reset-factors.ts';
import { scimTokenCommands } from './cli/scim-token.ts';
import { deploymentOf, type AuthEnv } from './config.ts';
import type { AuthDeployment } from './deployment/validate.ts';
import { authErrors } from './errors.ts';
import { authManifest } from './manifest.ts';
import { registerAccountAdminRoutes } from './routes/account-admin-routes.ts';
import { registerAccountRoutes } from './routes/account-routes.ts';
import { registerDeviceRoutes } from './routes/device-routes.ts';
import { registerMethodsRoutes } from './routes/methods-routes.ts';
import { registerOidcRoutes } from './routes/oidc-routes.ts';
import { registerPageRoutes } from './routes/page-routes.ts';
import { scimAuthentication } from './routes/scim/scim-authentication.ts';
import { registerScimDiscoveryRoutes } from './routes/scim/scim-discovery-routes.ts';
import { registerScimResourceRoutes } from './routes/scim/scim-routes.ts';
import { SCIM_BASE_PATH, scimErrorFormat } from './routes/scim/scim-wire.ts';
import { registerSessionRoutes } from './routes/session-routes.ts';
import { factorPrincipals } from './routes/factor-principal.ts';
import { registerFactorRoutes } from './routes/factor-routes.ts';
import { registerSecondFactorRoutes } from './routes/second-factor-routes.ts';
import { signInCompletion } from './routes/sign-in-completion.ts';
import { registerPasskeyRoutes } from './routes/passkey-routes.ts';
import { registerTotpRoutes } from './routes/totp-routes.ts';
import { webSessions } from './routes/web-session.ts';
import { adminReadinessWarnings } from './service/admin-readiness.ts';
import { createPasskeys } from './service/passkeys.ts';
import { createSecondFactors, type SecondFactors } from './service/second-factors.ts';
import { createSecretBox } from './service/secret-box.ts';
import { createTotp } from './service/totp.ts';
import { pendingSignInStore } from './store/pending-sign-in-store.ts';
import { webauthnCeremonyStore } from './store/webauthn-ceremony-store.ts';
import { canonicalEmail } from './domain/email.ts';
import type { AccountCache } from './service/account-cache.ts';
import { createDeviceTokens } from './service/device-tokens.ts';
import { directoryFromConfig } from './service/directory.ts';
import { discoverIdentityProvider } from './service/identity-provider.ts';
import { signInWithIdToken } from './service/oidc-sign-in.ts';
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
import { createSignInMetrics, type SignInMetrics } from './service/sign-in-metrics.ts';
import { oidcFlowStore } from './store/oidc-flow-store.ts';

/** The message of boot-time advice about the deployment (README, "Break-glass", "TOTP"): settings, not failures. */
export const DEPLOYMENT_ADVICE = 'auth deployment advice';

/**
 * Sign-in: local passwords, LDAP, OIDC single sign-on with device tokens, SCIM provisioning, server-side sessions,
 * and second factors (TOTP, passkeys, recovery codes, break-glass admins).
 * AUTH_MODE selects which sign-in methods load (deployment/validate.ts).
 */
export const authPlugin = definePlugin({
  ...authManifest,
  migrations: migrationsDir('auth'),
  errors: authErrors,
  commands: [createAdminCommand, resetFactorsCommand, ...scimTokenCommands],
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
    const signIns = createSignInMetrics(ctx.metrics);
    const factors = registerSecondFactors(ctx, { deployment, throttle, signIns });
    registerSessionRoutes(ctx, {
      login: createLoginService({ db: ctx.db, hasher, deployment, directory, accounts }),
      throttle,
      factors,
      deployment,
      signIns,
    });
    registerAccountRoutes(ctx, { deployment, hasher, denylist: loadDenylist(), throttle });
    registerAccountAdminRoutes(ctx, { accounts });
    registerPageRoutes(ctx, deployment);
    await registerSingleSignOn(ctx, { deployment, accounts, throttle, signIns });
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
    for (const advice of await adminReadinessWarnings(ctx.db, deployment))
      ctx.logger.warn({ advice }, DEPLOYMENT_ADVICE);
    ctx.hooks.health(async () => {
      const warnings = await adminReadinessWarnings(ctx.db, deployment);
      return { status: 'ok', ...(warnings.length > 0 ? { warnings } : {}) };
    });
  },
});

/**
 * Second factors (README, "Second factors"): TOTP with its sealed secrets, recovery codes, passkeys (when the
 * WebAuthn relying party resolves), the second step of a password sign-in, self-service enrollment and removal,
 * step-up.
 */
function registerSecondFactors(
  ctx: PluginContext<AuthEnv>,
  deps: { deployment: AuthDeployment; throttle: Throttle; signIns: SignInMetrics },
): SecondFactors {
  const totp = createTotp({ box: totpSecretBox(ctx), clock: ctx.clock, issuer: ctx.config.TOTP_ISSUER });
  const factors = createSecondFactors({
    db: ctx.db,
    clock: ctx.clock,
    totp,
    passkeysAvailable: deps.deployment.webauthn !== null,
  });
  const webSession = webSessions(ctx);
  const routeDeps = {
    deployment: deps.deployment,
    factors,
    throttle: deps.throttle,
    webSession,
    signIns: deps.signIns,
    complete: signInCompletion(ctx, {
      webSession,
      factors,
      deployment: deps.deployment,
      signIns: deps.signIns,
    }),
    principals: factorPrincipals(ctx, { webSession, factors }),
  };
  registerSecondFactorRoutes(ctx, routeDeps);
  registerTotpRoutes(ctx, routeDeps);
  registerFactorRoutes(ctx, routeDeps);
  const { webauthn } = deps.deployment;
  const passkeys = webauthn
    ? createPasskeys({ db: ctx.db, clock: ctx.clock, relyingParty: webauthn, rpName: ctx.config.TOTP_ISSUER })
    : null;
  registerPasskeyRoutes(ctx, { ...routeDeps, passkeys });
  // Sign-ins abandoned between their two steps, and WebAuthn ceremonies never finished, leave rows behind.
  const sweep = startLoop({
    name: 'pending-sign-in-sweep',
    intervalMs: 60_000,
    logger: ctx.logger,
    pass: async () => {
      const now = ctx.clock.now();
      return (await pendingSignInStore.sweep(ctx.db, now)) + (await webauthnCeremonyStore.sweep(ctx.db, now));
    },
  });
  ctx.hooks.onClose(() => sweep.stop());
  return factors;
}

/**
 * The keys that seal TOTP secrets (README, "TOTP"): TOTP_ENCRYPTION_KEY, else derived from AUTH_SECRET; in
 * development without either, a key of this process (enrollments do not survive a restart, like sessions).
 */
function totpSecretBox(ctx: PluginContext<AuthEnv>) {
  const explicit = ctx.config.TOTP_ENCRYPTION_KEY;
  if (explicit.length > 0) return createSecretBox(explicit, 'gatehouse totp secret');
  const fromAuthSecret = (ctx.config.AUTH_SECRET ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
  if (fromAuthSecret.length > 0) {
    if (!isDevelopment(ctx.core))
      ctx.logger.warn(
        {
          advice:
            'TOTP_ENCRYPTION_KEY is unset: TOTP secrets are sealed with a key derived from AUTH_SECRET, so rotating AUTH_SECRET needs its old value kept until every enrolled account has signed in',
        },
        DEPLOYMENT_ADVICE,
      );
    return createSecretBox(fromAuthSecret, 'gatehouse totp secret');
  }
  ctx.logger.warn('TOTP_ENCRYPTION_KEY and AUTH_SECRET are unset: TOTP enrollments end with this process');
  return createSecretBox([randomBytes(32).toString('base64url')], 'gatehouse totp secret');
}

/**
 * Discovery, single sign-on and device tokens (README, "Single sign-on", "Device tokens"). The issuer must answer
 * discovery at boot (bounded retry, then boot is refused), and the provider returns browsers to
 * APP_BASE_URL/auth/callback (in development, the gateway's own address).
 */
async function registerSingleSignOn(
  ctx: PluginContext<AuthEnv>,
  deps: { deployment: AuthDeployment; accounts: AccountCache; throttle: Throttle; signIns: SignInMetrics },
): Promise<void> {
  const { deployment, accounts, throttle, signIns } = deps;
  if (deployment.oidc && ctx.core.APP_BASE_URL === undefined)
    throw new BootError([
      `plugin auth: APP_BASE_URL: required when AUTH_MODE is ${deployment.mode} (single sign-on returns to APP_BASE_URL/auth/callback)`,
    ]);
  const provider = deployment.oidc
    ? await discoverIdentityProvider({
        issuer: ctx.config.OIDC_ISSUER as string,
        clientId: ctx.config.OIDC_CLIENT_ID as string,
        clientSecret: ctx.config.OIDC_CLIENT_SECRET,
        scopes: ctx.config.OIDC_SCOPES,
        bootTimeoutMs: ctx.config.OIDC_BOOT_TIMEOUT_MS,
        logger: ctx.logger,
      })
    : null;
  registerMethodsRoutes(ctx, { deployment, provider });
  const deviceTokens = createDeviceTokens({
    db: ctx.db,
    clock: ctx.clock,
    sessions: ctx.sessions,
    accounts,
    refreshTtlSeconds: ctx.config.DEVICE_REFRESH_TTL_SECONDS,
  });
  registerDeviceRoutes(ctx, { deviceTokens, throttle });
  if (provider) {
    const bootstrapAdminEmail =
      deployment.bootstrapAdminEmail === null ? null : canonicalEmail(deployment.bootstrapAdminEmail);
    registerOidcRoutes(ctx, {
      deployment,
      provider,
      signIn: (claims) => signInWithIdToken({ db: ctx.db, clock: ctx.clock, bootstrapAdminEmail }, claims),
      deviceTokens,
      throttle,
      signIns,
    });
    // Sign-ins abandoned at the provider leave their flow rows behind.
    const sweep = startLoop({
      name: 'oidc-flow-sweep',
      intervalMs: 60_000,
      logger: ctx.logger,
      pass: async () => {
        await oidcFlowStore.sweep(ctx.db, ctx.clock.now());
        return 0;
      },
    });
    ctx.hooks.onClose(() => sweep.stop());
  }
}

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
