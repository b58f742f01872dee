import { z } from 'zod';
import { integer, oneOf, secret } from '../config/env-schema.ts';

export const API_AUTH_MODES = ['disabled', 'warn', 'enforce'] as const;
export type ApiAuthMode = (typeof API_AUTH_MODES)[number];

/**
 * Comma-separated secrets, one or two: two only while rotating, so that either is accepted meanwhile
 * (docs/api-auth-gate.md, "Secret rotation").
 */
function secretList(minLength: number) {
  return z
    .string()
    .transform((value) => value.split(',').map((part) => part.trim()))
    .pipe(
      z
        .array(z.string().min(minLength, `each secret must be at least ${minLength} characters`))
        .min(1)
        .max(2, 'at most two secrets (the current one and the one being rotated out)'),
    );
}

/** One upstream of GATEWAY_UPSTREAMS: an existing service put behind the gate. */
const upstream = z.strictObject({
  prefix: z
    .string()
    .regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, 'prefix must start with "/" and not end with "/"'),
  target: z.url({ protocol: /^https?$/, error: 'target must be an http(s) URL' }),
  exempt: z.boolean().default(false),
  stripPrefix: z.boolean().default(false),
});
export type UpstreamConfig = z.output<typeof upstream>;

const upstreams = z
  .string()
  .transform((value, ctx) => {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON array of {prefix, target, exempt?, stripPrefix?}',
      });
      return z.NEVER;
    }
  })
  .pipe(z.array(upstream))
  .default([]);

/**
 * The gate's environment variables (docs/configuration.md, "API gate variables"). Rules that involve
 * APP_ENV are applied in `checkGateConfig`.
 */
export const gateConfigSchema = z.object({
  API_AUTH_MODE: oneOf(API_AUTH_MODES).optional(),
  INTERNAL_API_SECRET: secret(secretList(32).optional()),
  AUTH_SECRET: secret(secretList(1).optional()),
  AUTH_SESSION_COOKIE: z
    .string()
    .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'must be a cookie name')
    .optional(),
  GATEWAY_UPSTREAMS: upstreams,
  UPSTREAM_TIMEOUT_MS: integer(30_000, 100, 600_000),
  UPSTREAM_UNDERSCORE_HEADERS: oneOf(['drop', 'keep']).default('drop'),
  SESSION_CACHE_SIZE: integer(10_000, 0, 1_000_000),
});
export type GateEnv = z.output<typeof gateConfigSchema>;

export interface GateConfig {
  mode: ApiAuthMode;
  internalSecrets: readonly string[];
  authSecrets: readonly string[];
  /** Also the HKDF salt of the session key, as in Auth.js. */
  sessionCookie: string;
  upstreams: readonly UpstreamConfig[];
  upstreamTimeoutMs: number;
  /** Whether client headers with `_` in their name reach upstreams (docs/configuration.md). */
  upstreamUnderscoreHeaders: 'drop' | 'keep';
  sessionCacheSize: number;
}

/**
 * The cross-variable rules: API_AUTH_MODE unset is a boot error outside development and `disabled` in
 * development, where `npm start` must work without secrets; warn and enforce need both secrets. The cookie
 * name defaults as Auth.js does: `__Secure-` prefixed when the dashboard is served over https.
 */
export function checkGateConfig(
  env: GateEnv,
  isDevelopment: boolean,
  appBaseUrl?: string,
): { ok: true; value: GateConfig } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const mode = env.API_AUTH_MODE ?? (isDevelopment ? 'disabled' : undefined);
  if (mode === undefined) {
    problems.push('API_AUTH_MODE: required outside development (disabled, warn or enforce)');
  } else if (mode !== 'disabled') {
    if (!env.INTERNAL_API_SECRET)
      problems.push(`INTERNAL_API_SECRET: required when API_AUTH_MODE is ${mode}`);
    if (!env.AUTH_SECRET) problems.push(`AUTH_SECRET: required when API_AUTH_MODE is ${mode}`);
  }
  if (problems.length > 0 || mode === undefined) return { ok: false, problems };
  const secure =
    appBaseUrl !== undefined && URL.canParse(appBaseUrl) && new URL(appBaseUrl).protocol === 'https:';
  return {
    ok: true,
    value: {
      mode,
      internalSecrets: env.INTERNAL_API_SECRET ?? [],
      authSecrets: env.AUTH_SECRET ?? [],
      sessionCookie:
        env.AUTH_SESSION_COOKIE ?? (secure ? '__Secure-authjs.session-token' : 'authjs.session-token'),
      upstreams: env.GATEWAY_UPSTREAMS,
      upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS,
      upstreamUnderscoreHeaders: env.UPSTREAM_UNDERSCORE_HEADERS,
      sessionCacheSize: env.SESSION_CACHE_SIZE,
    },
  };
}

/**
 * The requirement rules of `checkGateConfig`, read from the raw environment, for when some gate
 * variable failed to parse: an operator still learns in the same run that the mode or a secret is missing.
 */
export function gateRequirementProblems(
  env: Readonly<Record<string, string | undefined>>,
  isDevelopment: boolean,
): string[] {
  const given = (name: string) => Boolean(env[name]) || Boolean(env[`${name}_FILE`]);
  const raw = env.API_AUTH_MODE;
  const mode = raw ? raw : isDevelopment ? 'disabled' : undefined;
  if (mode === undefined) return ['API_AUTH_MODE: required outside development (disabled, warn or enforce)'];
  if (mode !== 'warn' && mode !== 'enforce') return [];
  return [
    ...(given('INTERNAL_API_SECRET') ? [] : [`INTERNAL_API_SECRET: required when API_AUTH_MODE is ${mode}`]),
    ...(given('AUTH_SECRET') ? [] : [`AUTH_SECRET: required when API_AUTH_MODE is ${mode}`]),
  ];
}
