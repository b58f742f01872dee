import { canonicalEmail } from '../domain/email.ts';
import { WILDCARD_ROLE } from '../domain/roles.ts';

/**
 * The deployment rules of sign-in (README, "Deployment settings" and "Modes") as one pure function: the auth
 * plugin runs it at boot, and the operator runs the same function on an AuthConfig before rolling anything
 * out. No I/O, no environment access: values in, verdict out.
 */
export const AUTH_MODES = ['local', 'oidc', 'local+oidc'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/**
 * LDAP_MODE (README, "LDAP sign-in"): `mixed` (the default) takes local passwords and directory passwords side by
 * side; `only` makes the directory the one password source, and a local password works only for break-glass admins
 * (wildcard role, with a second factor), as in oidc mode.
 */
export const LDAP_MODES = ['mixed', 'only'] as const;
export type LdapMode = (typeof LDAP_MODES)[number];

/** The settings as given (after type parsing); every field optional where a deployment may leave it unset. */
export interface AuthDeploymentInput {
  appEnv: string;
  authMode?: AuthMode | undefined;
  /** Deprecated, superseded by AUTH_MODE; still read, for the development fallback and its boot error. */
  oidcEnabled?: boolean | undefined;
  oidcIssuer?: string | undefined;
  oidcClientId?: string | undefined;
  ldapEnabled: boolean;
  ldapMode?: string | undefined;
  breakGlass: boolean;
  bootstrapAdminEmail?: string | undefined;
  appBaseUrl?: string | undefined;
  webauthnRpId?: string | undefined;
  webauthnOrigins?: readonly string[] | undefined;
  /** Whether AUTH_SECRET is set: sign-in issues Auth.js session tokens made with it. */
  hasAuthSecret: boolean;
  ldapUrl?: string | undefined;
  ldapUserBase?: string | undefined;
  /** Whether LDAP_BIND_DN and LDAP_BIND_PASSWORD are both set. */
  ldapBind?: boolean | undefined;
}

/** Who may use the password endpoints (README, "Modes": break-glass admins in oidc mode). */
export type PasswordAccess = 'everyone' | 'break-glass-admins' | 'nobody';

/** Whether an account holding `roles` may sign in with, or change, a password under `access`. */
export function mayUsePassword(access: PasswordAccess, roles: readonly string[]): boolean {
  return access === 'everyone' || (access === 'break-glass-admins' && roles.includes(WILDCARD_ROLE));
}

/** What the mode turns on: the sign-in methods AUTH_MODE selects. */
export interface AuthDeployment {
  mode: AuthMode;
  /** True when AUTH_MODE was unset in development, so the development fallback applied. */
  fallback: boolean;
  password: PasswordAccess;
  /** Self-registration follows the admin toggle, or is off regardless of it (oidc). */
  registration: 'per-admin-toggle' | 'off';
  ldap: boolean;
  /** LDAP_MODE=only: directory passwords for everyone, local passwords for break-glass admins only. */
  ldapOnly: boolean;
  oidc: boolean;
  breakGlass: boolean;
  bootstrapAdminEmail: string | null;
  /** Passkey relying party, when it resolves; null disables passkeys (they are on whenever it resolves). */
  webauthn: { rpId: string; origins: string[] } | null;
}

export interface DeploymentProblem {
  /** The setting at fault, as the environment (and the AuthConfig) names it. */
  variable: string;
  message: string;
}

export type DeploymentVerdict =
  { ok: true; value: AuthDeployment } | { ok: false; problems: DeploymentProblem[] };

export function validateAuthDeployment(input: AuthDeploymentInput): DeploymentVerdict {
  const problems: DeploymentProblem[] = [];
  const development = input.appEnv === 'development';

  // AUTH_MODE is required outside development, where a forgotten one must not silently pick a mode; in
  // development, unset behaves as local, plus SSO when OIDC_ENABLED=true.
  let mode = input.authMode;
  const fallback = mode === undefined && development;
  if (mode === undefined) {
    if (development) mode = input.oidcEnabled === true ? 'local+oidc' : 'local';
    else
      problems.push({
        variable: 'AUTH_MODE',
        message: 'required outside development (local, oidc or local+oidc)',
      });
  }
  // AUTH_MODE=local with OIDC_ENABLED=true contradicts itself: refused rather than guessed.
  if (input.authMode === 'local' && input.oidcEnabled === true) {
    problems.push({
      variable: 'OIDC_ENABLED',
      message: 'is true but AUTH_MODE=local: set AUTH_MODE=local+oidc, or drop the deprecated OIDC_ENABLED',
    });
  }
  // LDAP_ENABLED=true with AUTH_MODE=oidc is refused: a directory password is a password sign-in.
  if (input.ldapEnabled && mode === 'oidc') {
    problems.push({
      variable: 'LDAP_ENABLED',
      message: 'cannot be true with AUTH_MODE=oidc (directory passwords are password logins)',
    });
  }
  const ldapMode = ldapModeOf(input, problems);
  const oidc = mode === 'oidc' || mode === 'local+oidc';
  // Single sign-on needs the issuer (it serves discovery) and the one client id every client is given;
  // without them it cannot start.
  if (oidc && !input.oidcIssuer)
    problems.push({ variable: 'OIDC_ISSUER', message: `required when AUTH_MODE is ${mode}` });
  if (oidc && !input.oidcClientId)
    problems.push({ variable: 'OIDC_CLIENT_ID', message: `required when AUTH_MODE is ${mode}` });

  // The session cookie is an Auth.js token made with AUTH_SECRET (README, "Web sessions"). Development
  // without one runs on a per-process secret (sessions end with the process).
  if (!input.hasAuthSecret && !development) {
    problems.push({
      variable: 'AUTH_SECRET',
      message: 'required to sign users in (session cookies are Auth.js tokens made with it)',
    });
  }
  // LDAP sign-in searches with a service account, then binds as the user (README, "LDAP sign-in").
  if (input.ldapEnabled && mode !== 'oidc') {
    if (!input.ldapUrl) problems.push({ variable: 'LDAP_URL', message: 'required when LDAP_ENABLED=true' });
    if (!input.ldapUserBase)
      problems.push({ variable: 'LDAP_USER_BASE', message: 'required when LDAP_ENABLED=true' });
    if (!input.ldapBind)
      problems.push({
        variable: 'LDAP_BIND_DN',
        message: 'LDAP_BIND_DN and LDAP_BIND_PASSWORD are required when LDAP_ENABLED=true',
      });
  }
  const webauthn = relyingParty(input, problems);
  if (problems.length > 0 || mode === undefined) return { ok: false, problems };

  const ldapOnly = ldapMode === 'only';
  return {
    ok: true,
    value: {
      mode,
      fallback,
      // README, "Modes": local passwords for everyone in local and local+oidc; in oidc mode and with LDAP_MODE=only
      // for break-glass admins alone, and for nobody when AUTH_BREAK_GLASS=false.
      password:
        mode === 'oidc' || ldapOnly ? (input.breakGlass ? 'break-glass-admins' : 'nobody') : 'everyone',
      // Self-registration makes local password accounts, which neither oidc mode nor LDAP-only mode has.
      registration: mode === 'oidc' || ldapOnly ? 'off' : 'per-admin-toggle',
      ldap: input.ldapEnabled && mode !== 'oidc',
      ldapOnly,
      oidc,
      breakGlass: input.breakGlass,
      bootstrapAdminEmail: canonicalEmail(input.bootstrapAdminEmail ?? '') ?? null,
      webauthn,
    },
  };
}

/** LDAP_MODE's value (default `mixed`); `only` needs the directory on. */
function ldapModeOf(input: AuthDeploymentInput, problems: DeploymentProblem[]): LdapMode {
  const value = input.ldapMode ?? 'mixed';
  if (!(LDAP_MODES as readonly string[]).includes(value)) {
    problems.push({ variable: 'LDAP_MODE', message: `must be one of ${LDAP_MODES.join(', ')}` });
    return 'mixed';
  }
  if (value === 'only' && !input.ldapEnabled)
    problems.push({ variable: 'LDAP_MODE', message: 'only needs LDAP_ENABLED=true' });
  return value as LdapMode;
}

/**
 * WEBAUTHN_RP_ID defaults to APP_BASE_URL's hostname, WEBAUTHN_ORIGINS to APP_BASE_URL (README, "Deployment
 * settings"). A browser uses a passkey only where the RP id is the domain of the page's origin, and only over
 * HTTPS (localhost excepted), so every origin must satisfy both. Passkeys are on when this resolves.
 */
function relyingParty(input: AuthDeploymentInput, problems: DeploymentProblem[]): AuthDeployment['webauthn'] {
  const base = input.appBaseUrl && URL.canParse(input.appBaseUrl) ? new URL(input.appBaseUrl) : undefined;
  const rpId = (input.webauthnRpId ?? base?.hostname)?.toLowerCase();
  const origins =
    input.webauthnOrigins && input.webauthnOrigins.length > 0
      ? [...input.webauthnOrigins]
      : base
        ? [base.origin]
        : [];
  if (rpId === undefined || origins.length === 0) return null;
  const found: DeploymentProblem[] = [];
  for (const origin of origins) {
    if (!URL.canParse(origin)) continue;
    const url = new URL(origin);
    const host = url.hostname.toLowerCase();
    if (host !== rpId && !host.endsWith(`.${rpId}`)) {
      found.push({
        variable: 'WEBAUTHN_RP_ID',
        message: `"${rpId}" is not the domain of the origin ${origin}`,
      });
    }
    if (url.protocol !== 'https:' && host !== 'localhost' && input.appEnv !== 'development') {
      found.push({
        variable: 'WEBAUTHN_ORIGINS',
        message: `${origin} is not https (passkeys need HTTPS outside localhost)`,
      });
    }
  }
  if (found.length === 0) return { rpId, origins };
  // Set explicitly, a relying party that cannot work is a mistake to refuse; derived from an
  // http APP_BASE_URL, it just means passkeys stay off.
  if (input.webauthnRpId !== undefined || (input.webauthnOrigins?.length ?? 0) > 0) problems.push(...found);
  return null;
}
