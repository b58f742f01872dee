import type { ApiAuthMode, AuthConfigSpec, SecretKeyRef } from './types.generated.ts';

/**
 * Which spec field becomes which environment variable. The environment is the contract between the operator
 * and the gateway, so the names are the gateway's exactly (docs/configuration.md). One table serves the rendering, the
 * CEL rule that keeps `spec.env` off these names, and validateSpec, which names the spec field at fault.
 */
export interface PlainSetting {
  variable: string;
  /** The spec field, as a path under `spec`. */
  field: string;
  /** The value as the gateway reads it, or undefined to leave the variable unset. */
  render(spec: AuthConfigSpec, apiAuthMode: ApiAuthMode): string | undefined;
}

export interface SecretSetting {
  variable: string;
  field: string;
  ref(spec: AuthConfigSpec): SecretKeyRef | undefined;
}

const flag = (value: boolean): string => (value ? 'true' : 'false');

/**
 * A JSON object with its keys sorted, so equal maps render to equal strings (and equal ConfigMap hashes).
 * Built by hand: a JS object would move integer-like keys ("10") to the front whatever the order.
 */
function canonicalJson(map: Readonly<Record<string, string>>): string {
  const entries = Object.keys(map)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(map[key])}`);
  return `{${entries.join(',')}}`;
}

export const PLAIN_SETTINGS: readonly PlainSetting[] = [
  { variable: 'APP_ENV', field: 'appEnv', render: (spec) => spec.appEnv },
  { variable: 'APP_BASE_URL', field: 'appBaseUrl', render: (spec) => spec.appBaseUrl },
  { variable: 'AUTH_MODE', field: 'authMode', render: (spec) => spec.authMode },
  // Deprecated (superseded by AUTH_MODE): absent means false, so only a true value is written.
  {
    variable: 'OIDC_ENABLED',
    field: 'oidc.enabled',
    render: (spec) => (spec.oidc.enabled ? 'true' : undefined),
  },
  { variable: 'OIDC_KIND', field: 'oidc.kind', render: (spec) => spec.oidc.kind },
  { variable: 'OIDC_ISSUER', field: 'oidc.issuer', render: (spec) => spec.oidc.issuer },
  { variable: 'OIDC_CLIENT_ID', field: 'oidc.clientId', render: (spec) => spec.oidc.clientId },
  {
    variable: 'BOOTSTRAP_ADMIN_EMAIL',
    field: 'bootstrapAdminEmail',
    render: (spec) => spec.bootstrapAdminEmail,
  },
  { variable: 'AUTH_BREAK_GLASS', field: 'breakGlass', render: (spec) => flag(spec.breakGlass) },
  { variable: 'LDAP_ENABLED', field: 'ldap.enabled', render: (spec) => flag(spec.ldap.enabled) },
  { variable: 'LDAP_MODE', field: 'ldap.mode', render: (spec) => spec.ldap.mode },
  { variable: 'LDAP_URL', field: 'ldap.url', render: (spec) => spec.ldap.url },
  { variable: 'LDAP_BIND_DN', field: 'ldap.bindDn', render: (spec) => spec.ldap.bindDn },
  { variable: 'LDAP_USER_BASE', field: 'ldap.userBase', render: (spec) => spec.ldap.userBase },
  { variable: 'LDAP_USER_FILTER', field: 'ldap.userFilter', render: (spec) => spec.ldap.userFilter },
  { variable: 'LDAP_GROUP_BASE', field: 'ldap.groupBase', render: (spec) => spec.ldap.groupBase },
  {
    variable: 'LDAP_GROUP_ROLES',
    field: 'ldap.groupRoles',
    render: (spec) => (spec.ldap.groupRoles ? canonicalJson(spec.ldap.groupRoles) : undefined),
  },
  { variable: 'LDAP_START_TLS', field: 'ldap.startTls', render: (spec) => flag(spec.ldap.startTls) },
  { variable: 'LDAP_TIMEOUT_MS', field: 'ldap.timeoutMs', render: (spec) => String(spec.ldap.timeoutMs) },
  { variable: 'WEBAUTHN_RP_ID', field: 'webauthn.rpId', render: (spec) => spec.webauthn.rpId },
  {
    variable: 'WEBAUTHN_ORIGINS',
    field: 'webauthn.origins',
    render: (spec) => (spec.webauthn.origins?.length ? spec.webauthn.origins.join(',') : undefined),
  },
  // Order kept: the gateway registers plugins in this order where dependencies allow.
  { variable: 'GATEWAY_PLUGINS', field: 'plugins', render: (spec) => spec.plugins.join(',') },
  // The effective mode, which the rollout moves towards spec.apiAuth.mode one step at a time.
  { variable: 'API_AUTH_MODE', field: 'apiAuth.mode', render: (_spec, apiAuthMode) => apiAuthMode },
];

/** Secrets with a field of their own; every other secret comes through `spec.secretEnv`. */
export const SECRET_SETTINGS: readonly SecretSetting[] = [
  { variable: 'OIDC_CLIENT_SECRET', field: 'oidc.clientSecretRef', ref: (spec) => spec.oidc.clientSecretRef },
  { variable: 'LDAP_BIND_PASSWORD', field: 'ldap.bindPasswordRef', ref: (spec) => spec.ldap.bindPasswordRef },
];

/** Variables the spec sets through its own fields: `spec.env` and `spec.secretEnv` may not name them. */
export const MANAGED_VARIABLES: readonly string[] = [
  ...PLAIN_SETTINGS.map((setting) => setting.variable),
  ...SECRET_SETTINGS.map((setting) => setting.variable),
];

/** The spec field (path under `spec`) that sets `variable`, for problem messages. */
export function fieldOf(spec: AuthConfigSpec, variable: string): string | undefined {
  const own = [...PLAIN_SETTINGS, ...SECRET_SETTINGS].find((setting) => setting.variable === variable);
  if (own) return own.field;
  const secret = spec.secretEnv.findIndex((entry) => entry.name === variable);
  if (secret >= 0) return `secretEnv[${secret}]`;
  const plain = spec.env.findIndex((entry) => entry.name === variable);
  if (plain >= 0) return `env[${plain}]`;
  return undefined;
}

/**
 * The plain (non-secret) variables of a spec, unsorted: the spec's own fields, then `spec.env`. The
 * API_AUTH_MODE written is `apiAuthMode`, the rollout's effective mode.
 */
export function plainVariables(spec: AuthConfigSpec, apiAuthMode: ApiAuthMode): Map<string, string> {
  const variables = new Map<string, string>();
  for (const setting of PLAIN_SETTINGS) {
    const value = setting.render(spec, apiAuthMode);
    if (value !== undefined) variables.set(setting.variable, value);
  }
  // A name the spec sets itself stays the field's value (validateSpec reports the entry).
  for (const entry of spec.env)
    if (!MANAGED_VARIABLES.includes(entry.name)) variables.set(entry.name, entry.value);
  return variables;
}

/** The secret variables of a spec and the Secret keys they come from. */
export function secretVariables(spec: AuthConfigSpec): Map<string, SecretKeyRef> {
  const variables = new Map<string, SecretKeyRef>();
  for (const setting of SECRET_SETTINGS) {
    const ref = setting.ref(spec);
    if (ref) variables.set(setting.variable, ref);
  }
  for (const entry of spec.secretEnv)
    if (!MANAGED_VARIABLES.includes(entry.name)) variables.set(entry.name, entry.secretKeyRef);
  return variables;
}
