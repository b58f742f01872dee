import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { boolean, integer, list, oneOf, secret } from '../../../gateway/src/plugin-api.ts';
import {
  AUTH_MODES,
  validateAuthDeployment,
  type AuthDeployment,
  type AuthDeploymentInput,
} from './deployment/validate.ts';

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

/** A JSON object of directory group → gateway role (LDAP_GROUP_ROLES, SCIM_GROUP_ROLES); `{}` when unset. */
function groupRoleMap(role: z.ZodType<string>) {
  return z
    .string()
    .transform((value, ctx) => {
      try {
        return JSON.parse(value) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of group → role' });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), role))
    .default({});
}

/**
 * The auth plugin's deployment settings (README, "Deployment settings"): the names are the contract with the
 * operator's AuthConfig, so they are used exactly as documented. APP_ENV and APP_BASE_URL are shared with the
 * core and read here too. Cross-setting rules are `validateAuthDeployment`, reported with every other
 * configuration problem.
 */
export const authConfigSchema = z
  .object({
    APP_ENV: z.string().default('production'),
    // Its format is the core's to check (reported once); the rules here only read it.
    APP_BASE_URL: z.string().optional(),
    AUTH_MODE: oneOf(AUTH_MODES).optional(),
    OIDC_ENABLED: boolean(false),
    OIDC_KIND: z.string().default('generic'),
    OIDC_ISSUER: url.optional(),
    OIDC_CLIENT_ID: z.string().min(1).optional(),
    OIDC_CLIENT_SECRET: secret(z.string().min(1).optional()),
    // Shared with the API gate, which derives the session keys from it; read here only to require it.
    AUTH_SECRET: secret(z.string().min(1).optional()),
    /** Scopes asked of the identity provider; `openid` is always asked. */
    OIDC_SCOPES: z
      .string()
      .transform((value) => value.split(/[\s,]+/).filter((scope) => scope.length > 0))
      .default(['openid', 'email', 'profile']),
    /** How long boot keeps retrying the issuer's discovery before it refuses to start. */
    OIDC_BOOT_TIMEOUT_MS: integer(30_000, 0, 600_000),
    /** URI schemes of the mobile apps whose `<scheme>://auth/callback` a device exchange may name. */
    OIDC_APP_SCHEMES: list([]).pipe(
      z.array(z.string().regex(/^[a-z][a-z0-9+.-]*$/, 'each entry must be a URI scheme')),
    ),
    /** How long a device sign-in lasts without a refresh (each refresh starts it again). */
    DEVICE_REFRESH_TTL_SECONDS: integer(2_592_000, 3_600, 31_536_000),
    /** Failed code exchanges and refreshes a client address may make in a window before the delay. */
    TOKEN_FREE_FAILURES_PER_IP: integer(30, 1, 100_000),
    BOOTSTRAP_ADMIN_EMAIL: z.email({ error: 'must be an email address' }).optional(),
    AUTH_BREAK_GLASS: boolean(true),
    LDAP_ENABLED: boolean(false),
    /** `mixed` (default) or `only`; checked with the other deployment rules (deployment/validate.ts). */
    LDAP_MODE: z.string().optional(),
    LDAP_URL: z.url({ protocol: /^ldaps?$/, error: 'must be an ldap:// or ldaps:// URL' }).optional(),
    LDAP_BIND_DN: z.string().min(1).optional(),
    LDAP_BIND_PASSWORD: secret(z.string().min(1).optional()),
    LDAP_USER_BASE: z.string().min(1).optional(),
    LDAP_USER_FILTER: z
      .string()
      .includes('{email}', { error: 'must contain {email}' })
      .default('(mail={email})'),
    LDAP_GROUP_BASE: z.string().min(1).optional(),
    /** Directory group (cn) → gateway role, e.g. {"support":"agent","it-admins":"users:admin"}. */
    LDAP_GROUP_ROLES: groupRoleMap(z.string()),
    /**
     * SCIM group (displayName, exactly) → gateway role, e.g. {"Support":"agent","IT Admins":"users:admin"}
     * (README, "SCIM provisioning"). Each role must be a valid role name.
     */
    SCIM_GROUP_ROLES: groupRoleMap(
      z.string().regex(/^(?:\*|[a-z][a-z0-9_.:-]*)$/, 'each role is * or a role name (a-z, 0-9, _ . : -)'),
    ),
    LDAP_START_TLS: boolean(false),
    LDAP_TIMEOUT_MS: integer(5_000, 100, 60_000),
    WEBAUTHN_RP_ID: z
      .string()
      .regex(/^[a-z0-9.-]+$/i, 'must be a hostname')
      .optional(),
    /** How long a web session lasts (its cookie and its server-side row). */
    SESSION_TTL_SECONDS: integer(43_200, 300, 2_592_000),
    /**
     * Password hashes computed at once (each holds 19 MiB while it runs). argon2 runs on libuv's thread
     * pool; the default leaves one core to the event loop that serves every other route.
     */
    LOGIN_MAX_CONCURRENT_HASHES: integer(Math.max(1, availableParallelism() - 1), 1, 64),
    /** How long a login may wait for a hash slot before 503 auth.busy. */
    LOGIN_HASH_WAIT_MS: integer(2_000, 0, 60_000),
    /** Brute-force limits: free failures per window, then a delay doubling from 1 s up to the maximum. */
    LOGIN_FREE_FAILURES_PER_ACCOUNT: integer(5, 1, 1000),
    LOGIN_FREE_FAILURES_PER_IP: integer(20, 1, 100_000),
    REGISTER_FREE_ATTEMPTS_PER_IP: integer(10, 1, 100_000),
    ATTEMPT_WINDOW_SECONDS: integer(3_600, 60, 86_400),
    ATTEMPT_MAX_DELAY_SECONDS: integer(900, 1, 86_400),
    /**
     * Keys that seal TOTP secrets at rest (README, "TOTP"): comma-separated, at least 32 characters each; the first
     * seals, every one opens (rotation). Unset: derived from AUTH_SECRET.
     */
    TOTP_ENCRYPTION_KEY: secret(
      list([]).pipe(z.array(z.string().min(32, 'each key must have at least 32 characters'))),
    ),
    /** The issuer an authenticator app shows next to the account. */
    TOTP_ISSUER: z.string().min(1).max(64).default('Gatehouse'),
    WEBAUTHN_ORIGINS: list([]).pipe(
      z.array(z.url({ protocol: /^https?$/, error: 'each entry must be an origin' })),
    ),
  })
  .superRefine((env, ctx) => {
    const verdict = validateAuthDeployment(deploymentInput(env));
    if (verdict.ok) return;
    for (const problem of verdict.problems)
      ctx.addIssue({ code: 'custom', path: [problem.variable], message: problem.message });
  });

export type AuthEnv = z.output<typeof authConfigSchema>;

/** Maps the environment variables to the input of the pure rules. */
export function deploymentInput(env: AuthEnv): AuthDeploymentInput {
  return {
    appEnv: env.APP_ENV,
    authMode: env.AUTH_MODE,
    oidcEnabled: env.OIDC_ENABLED,
    oidcIssuer: env.OIDC_ISSUER,
    oidcClientId: env.OIDC_CLIENT_ID,
    ldapEnabled: env.LDAP_ENABLED,
    ldapMode: env.LDAP_MODE,
    breakGlass: env.AUTH_BREAK_GLASS,
    bootstrapAdminEmail: env.BOOTSTRAP_ADMIN_EMAIL,
    appBaseUrl: env.APP_BASE_URL,
    webauthnRpId: env.WEBAUTHN_RP_ID,
    webauthnOrigins: env.WEBAUTHN_ORIGINS,
    hasAuthSecret: env.AUTH_SECRET !== undefined,
    ldapUrl: env.LDAP_URL,
    ldapUserBase: env.LDAP_USER_BASE,
    ldapBind: env.LDAP_BIND_DN !== undefined && env.LDAP_BIND_PASSWORD !== undefined,
  };
}

/**
 * What the settings turn on: the sign-in methods AUTH_MODE selects. The schema has already refused
 * settings that break a deployment rule, so this throws only if it is called on unchecked settings.
 */
export function deploymentOf(env: AuthEnv): AuthDeployment {
  const verdict = validateAuthDeployment(deploymentInput(env));
  if (!verdict.ok) throw new Error(verdict.problems.map((p) => `${p.variable}: ${p.message}`).join('; '));
  return verdict.value;
}
