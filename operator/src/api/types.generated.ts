// Generated from operator/src/api/{spec-schema,status-schema,cel-rules}.ts by `node operator/scripts/generate-crd.ts`. Do not edit.

/** The gateway deployment settings this AuthConfig renders into environment variables. */
export interface AuthConfigSpec {
  /** The gateway Deployment the settings are rolled out to, in the AuthConfig namespace. */
  target: TargetRef;
  /** APP_ENV: development is the only special value. Default: `"production"`. */
  appEnv: string;
  /** APP_BASE_URL: public URL of the web app; passkey defaults derive from it. */
  appBaseUrl?: string;
  /** AUTH_MODE: the offered sign-in methods. Required unless appEnv is development. */
  authMode?: 'local' | 'oidc' | 'local+oidc';
  /** OpenID Connect single sign-on (the OIDC_* settings of the auth plugin). Default: `{}`. */
  oidc: OidcSettings;
  /** BOOTSTRAP_ADMIN_EMAIL: granted the admin role at its first OIDC sign-in. */
  bootstrapAdminEmail?: string;
  /** AUTH_BREAK_GLASS: in oidc mode, admins may still sign in with a password. Default: `true`. */
  breakGlass: boolean;
  /** Directory passwords (the LDAP_* settings of the auth plugin). Default: `{}`. */
  ldap: LdapSettings;
  /** Passkey relying party (WEBAUTHN_*). Unset values derive from appBaseUrl. Default: `{}`. */
  webauthn: WebAuthnSettings;
  /** GATEWAY_PLUGINS, in order. Each plugin needs the plugins it depends on. Default: `["auth","kyc","messaging","realtime"]`. */
  plugins: Array<'auth' | 'kyc' | 'messaging' | 'realtime'>;
  /** Secret settings from Secret keys: INTERNAL_API_SECRET, AUTH_SECRET, DATABASE_URL, WEBHOOK_VERIFY_TOKEN, ... (the OIDC client secret and LDAP bind password have their own fields). Default: `[]`. */
  secretEnv: SecretEnvVar[];
  /** Further plain settings of the gateway and its plugins, e.g. LOG_LEVEL or CORS_ORIGINS. Default: `[]`. */
  env: EnvVar[];
  /** The gateway's API gate (API_AUTH_MODE) and its phased rollout. Default: `{}`. */
  apiAuth: ApiAuthSettings;
}

/** AuthConfigSpec as written: fields with a default may be left out. */
export interface AuthConfigSpecInput {
  /** The gateway Deployment the settings are rolled out to, in the AuthConfig namespace. */
  target: TargetRef;
  /** APP_ENV: development is the only special value. Default: `"production"`. */
  appEnv?: string;
  /** APP_BASE_URL: public URL of the web app; passkey defaults derive from it. */
  appBaseUrl?: string;
  /** AUTH_MODE: the offered sign-in methods. Required unless appEnv is development. */
  authMode?: 'local' | 'oidc' | 'local+oidc';
  /** OpenID Connect single sign-on (the OIDC_* settings of the auth plugin). Default: `{}`. */
  oidc?: OidcSettingsInput;
  /** BOOTSTRAP_ADMIN_EMAIL: granted the admin role at its first OIDC sign-in. */
  bootstrapAdminEmail?: string;
  /** AUTH_BREAK_GLASS: in oidc mode, admins may still sign in with a password. Default: `true`. */
  breakGlass?: boolean;
  /** Directory passwords (the LDAP_* settings of the auth plugin). Default: `{}`. */
  ldap?: LdapSettingsInput;
  /** Passkey relying party (WEBAUTHN_*). Unset values derive from appBaseUrl. Default: `{}`. */
  webauthn?: WebAuthnSettings;
  /** GATEWAY_PLUGINS, in order. Each plugin needs the plugins it depends on. Default: `["auth","kyc","messaging","realtime"]`. */
  plugins?: Array<'auth' | 'kyc' | 'messaging' | 'realtime'>;
  /** Secret settings from Secret keys: INTERNAL_API_SECRET, AUTH_SECRET, DATABASE_URL, WEBHOOK_VERIFY_TOKEN, ... (the OIDC client secret and LDAP bind password have their own fields). Default: `[]`. */
  secretEnv?: SecretEnvVar[];
  /** Further plain settings of the gateway and its plugins, e.g. LOG_LEVEL or CORS_ORIGINS. Default: `[]`. */
  env?: EnvVar[];
  /** The gateway's API gate (API_AUTH_MODE) and its phased rollout. Default: `{}`. */
  apiAuth?: ApiAuthSettingsInput;
}

/** The gateway Deployment the settings are rolled out to, in the AuthConfig namespace. */
export interface TargetRef {
  /** Name of the Deployment. */
  name: string;
  /** The container that runs the gateway. Default: the first container. */
  container?: string;
}

/** A key of a Secret in the AuthConfig namespace, referenced by the pods; the operator only digests the Secret to roll the pods when it changes. */
export interface SecretKeyRef {
  /** Name of the Secret. */
  name: string;
  /** Key within the Secret. */
  key: string;
}

/** OpenID Connect single sign-on (the OIDC_* settings of the auth plugin). */
export interface OidcSettings {
  /** OIDC_ENABLED, deprecated and superseded by authMode. true with authMode local is invalid (the gateway refuses to boot). Rendered only when true. Default: `false`. */
  enabled: boolean;
  /** OIDC_KIND: generic or a provider label; affects log labels only. Default: `"generic"`. */
  kind: string;
  /** OIDC_ISSUER: serves discovery at <issuer>/.well-known/openid-configuration. */
  issuer?: string;
  /** OIDC_CLIENT_ID: the one client id published to every client. */
  clientId?: string;
  /** OIDC_CLIENT_SECRET, from a Secret. Optional: PKCE alone is valid. */
  clientSecretRef?: SecretKeyRef;
}

/** OidcSettings as written: fields with a default may be left out. */
export interface OidcSettingsInput {
  /** OIDC_ENABLED, deprecated and superseded by authMode. true with authMode local is invalid (the gateway refuses to boot). Rendered only when true. Default: `false`. */
  enabled?: boolean;
  /** OIDC_KIND: generic or a provider label; affects log labels only. Default: `"generic"`. */
  kind?: string;
  /** OIDC_ISSUER: serves discovery at <issuer>/.well-known/openid-configuration. */
  issuer?: string;
  /** OIDC_CLIENT_ID: the one client id published to every client. */
  clientId?: string;
  /** OIDC_CLIENT_SECRET, from a Secret. Optional: PKCE alone is valid. */
  clientSecretRef?: SecretKeyRef;
}

/** Directory passwords (the LDAP_* settings of the auth plugin). */
export interface LdapSettings {
  /** LDAP_ENABLED. true with authMode oidc is invalid (the gateway refuses to boot). Default: `false`. */
  enabled: boolean;
  /** LDAP_MODE: mixed (default: local and directory passwords) or only (directory passwords; a local password only for break-glass admins). only needs enabled. */
  mode?: 'mixed' | 'only';
  /** LDAP_URL: ldap:// or ldaps://. Required when enabled. */
  url?: string;
  /** LDAP_BIND_DN: the service account that searches for users. Required when enabled. */
  bindDn?: string;
  /** LDAP_BIND_PASSWORD, from a Secret. Required when enabled. */
  bindPasswordRef?: SecretKeyRef;
  /** LDAP_USER_BASE: where users are searched. Required when enabled. */
  userBase?: string;
  /** LDAP_USER_FILTER: must contain {email}. Default: `"(mail={email})"`. */
  userFilter: string;
  /** LDAP_GROUP_BASE: where groupOfNames groups are searched. Unset: no group roles. */
  groupBase?: string;
  /** LDAP_GROUP_ROLES: directory group (cn) to gateway role, rendered as a JSON object. */
  groupRoles?: Record<string, string>;
  /** LDAP_START_TLS: StartTLS on ldap:// URLs. Default: `false`. */
  startTls: boolean;
  /** LDAP_TIMEOUT_MS: connect and operation timeout. Default: `5000`. */
  timeoutMs: number;
}

/** LdapSettings as written: fields with a default may be left out. */
export interface LdapSettingsInput {
  /** LDAP_ENABLED. true with authMode oidc is invalid (the gateway refuses to boot). Default: `false`. */
  enabled?: boolean;
  /** LDAP_MODE: mixed (default: local and directory passwords) or only (directory passwords; a local password only for break-glass admins). only needs enabled. */
  mode?: 'mixed' | 'only';
  /** LDAP_URL: ldap:// or ldaps://. Required when enabled. */
  url?: string;
  /** LDAP_BIND_DN: the service account that searches for users. Required when enabled. */
  bindDn?: string;
  /** LDAP_BIND_PASSWORD, from a Secret. Required when enabled. */
  bindPasswordRef?: SecretKeyRef;
  /** LDAP_USER_BASE: where users are searched. Required when enabled. */
  userBase?: string;
  /** LDAP_USER_FILTER: must contain {email}. Default: `"(mail={email})"`. */
  userFilter?: string;
  /** LDAP_GROUP_BASE: where groupOfNames groups are searched. Unset: no group roles. */
  groupBase?: string;
  /** LDAP_GROUP_ROLES: directory group (cn) to gateway role, rendered as a JSON object. */
  groupRoles?: Record<string, string>;
  /** LDAP_START_TLS: StartTLS on ldap:// URLs. Default: `false`. */
  startTls?: boolean;
  /** LDAP_TIMEOUT_MS: connect and operation timeout. Default: `5000`. */
  timeoutMs?: number;
}

/** Passkey relying party (WEBAUTHN_*). Unset values derive from appBaseUrl. */
export interface WebAuthnSettings {
  /** WEBAUTHN_RP_ID: a lower-case hostname, the registrable domain of every origin. */
  rpId?: string;
  /** WEBAUTHN_ORIGINS: origins (scheme, lower-case host, optional port), https outside localhost. */
  origins?: string[];
}

/** A further plain setting of the gateway or a plugin (not a secret), e.g. LOG_LEVEL. */
export interface EnvVar {
  /** The variable name. */
  name: string;
  /** Its value. */
  value: string;
}

/** A secret setting, e.g. AUTH_SECRET, taken from a Secret key. */
export interface SecretEnvVar {
  /** The variable name. */
  name: string;
  /** A key of a Secret in the AuthConfig namespace, referenced by the pods; the operator only digests the Secret to roll the pods when it changes. */
  secretKeyRef: SecretKeyRef;
}

/** An API_AUTH_MODE: disabled (the gate checks nothing), warn (failures pass, counted as would-deny), enforce (failures are refused with 401). */
export type ApiAuthMode = 'disabled' | 'warn' | 'enforce';

/** The gateway's API gate (API_AUTH_MODE) and its phased rollout. */
export interface ApiAuthSettings {
  /** The API_AUTH_MODE the SRE wants. The operator moves the effective mode towards it one step at a time; disabled is applied at once (rollback). Default: `"disabled"`. */
  mode: ApiAuthMode;
  /** How the effective API_AUTH_MODE moves towards apiAuth.mode, one step at a time (the phase plan: warn observed 24 to 72 hours, enforce soaked 7 or more days). Default: `{}`. */
  rollout: RolloutPolicy;
}

/** ApiAuthSettings as written: fields with a default may be left out. */
export interface ApiAuthSettingsInput {
  /** The API_AUTH_MODE the SRE wants. The operator moves the effective mode towards it one step at a time; disabled is applied at once (rollback). Default: `"disabled"`. */
  mode?: ApiAuthMode;
  /** How the effective API_AUTH_MODE moves towards apiAuth.mode, one step at a time (the phase plan: warn observed 24 to 72 hours, enforce soaked 7 or more days). Default: `{}`. */
  rollout?: RolloutPolicyInput;
}

/** How the effective API_AUTH_MODE moves towards apiAuth.mode, one step at a time (the phase plan: warn observed 24 to 72 hours, enforce soaked 7 or more days). */
export interface RolloutPolicy {
  /** Promote warn to enforce when the analysis passes; false leaves the promotion to a human. Default: `true`. */
  automaticPromotion: boolean;
  /** Least time in warn before a promotion. Default: `"24h"`. */
  minWarnSoak: string;
  /** Past this time in warn without a passing analysis, ask a human. Default: `"72h"`. */
  maxWarnSoak: string;
  /** Time in enforce after which phase 3 is ready. Default: `"168h"`. */
  minEnforceSoak: string;
  /** Highest share of gated requests that may fail the gate: would_deny in warn (to promote), fail in enforce (else a bad check). Default: `0.01`. */
  maxWouldDenyRatio: number;
  /** Fewest gated requests in the window for a verdict; fewer is inconclusive, never a pass. Default: `1000`. */
  minGatedRequests: number;
  /** How often the analysis runs. Default: `"5m"`. */
  analysisInterval: string;
  /** The range the queries look back over ({{window}}). Default: `"1h"`. */
  analysisWindow: string;
  /** Bad checks in a row in enforce before the operator falls back to warn. Default: `3`. */
  consecutiveFailuresBeforeFallback: number;
  /** Where the rollout analysis reads the gate metric. Default: `{}`. */
  prometheus: PrometheusAnalysis;
}

/** RolloutPolicy as written: fields with a default may be left out. */
export interface RolloutPolicyInput {
  /** Promote warn to enforce when the analysis passes; false leaves the promotion to a human. Default: `true`. */
  automaticPromotion?: boolean;
  /** Least time in warn before a promotion. Default: `"24h"`. */
  minWarnSoak?: string;
  /** Past this time in warn without a passing analysis, ask a human. Default: `"72h"`. */
  maxWarnSoak?: string;
  /** Time in enforce after which phase 3 is ready. Default: `"168h"`. */
  minEnforceSoak?: string;
  /** Highest share of gated requests that may fail the gate: would_deny in warn (to promote), fail in enforce (else a bad check). Default: `0.01`. */
  maxWouldDenyRatio?: number;
  /** Fewest gated requests in the window for a verdict; fewer is inconclusive, never a pass. Default: `1000`. */
  minGatedRequests?: number;
  /** How often the analysis runs. Default: `"5m"`. */
  analysisInterval?: string;
  /** The range the queries look back over ({{window}}). Default: `"1h"`. */
  analysisWindow?: string;
  /** Bad checks in a row in enforce before the operator falls back to warn. Default: `3`. */
  consecutiveFailuresBeforeFallback?: number;
  /** Where the rollout analysis reads the gate metric. Default: `{}`. */
  prometheus?: PrometheusAnalysisInput;
}

/** Where the rollout analysis reads the gate metric. */
export interface PrometheusAnalysis {
  /** Base URL of the Prometheus HTTP API. Without it nothing is ever promoted automatically. */
  url?: string;
  /** PromQL instant queries, each returning one number over the analysis window. Placeholders: {{window}} (analysisWindow), {{namespace}} (the AuthConfig namespace), {{mode}} (the mode analysed: warn or enforce). The defaults read the per-request verdict counter, so a request failing both gate layers counts once. Default: `{}`. */
  queries: PrometheusQueries;
}

/** PrometheusAnalysis as written: fields with a default may be left out. */
export interface PrometheusAnalysisInput {
  /** Base URL of the Prometheus HTTP API. Without it nothing is ever promoted automatically. */
  url?: string;
  /** PromQL instant queries, each returning one number over the analysis window. Placeholders: {{window}} (analysisWindow), {{namespace}} (the AuthConfig namespace), {{mode}} (the mode analysed: warn or enforce). The defaults read the per-request verdict counter, so a request failing both gate layers counts once. Default: `{}`. */
  queries?: PrometheusQueriesInput;
}

/** PromQL instant queries, each returning one number over the analysis window. Placeholders: {{window}} (analysisWindow), {{namespace}} (the AuthConfig namespace), {{mode}} (the mode analysed: warn or enforce). The defaults read the per-request verdict counter, so a request failing both gate layers counts once. */
export interface PrometheusQueries {
  /** Gated requests in the window in the analysed mode (the sample size). Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"{{mode}}\"}[{{window}}]))"`. */
  gatedRequests: string;
  /** In warn: requests that enforce would have refused. Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"warn\",outcome=\"would_deny\"}[{{window}}]))"`. */
  wouldDeny: string;
  /** In enforce: requests refused with 401. Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"enforce\",outcome=\"fail\"}[{{window}}]))"`. */
  failed: string;
}

/** PrometheusQueries as written: fields with a default may be left out. */
export interface PrometheusQueriesInput {
  /** Gated requests in the window in the analysed mode (the sample size). Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"{{mode}}\"}[{{window}}]))"`. */
  gatedRequests?: string;
  /** In warn: requests that enforce would have refused. Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"warn\",outcome=\"would_deny\"}[{{window}}]))"`. */
  wouldDeny?: string;
  /** In enforce: requests refused with 401. Default: `"sum(increase(gatehouse_auth_gate_requests_total{namespace=\"{{namespace}}\",mode=\"enforce\",outcome=\"fail\"}[{{window}}]))"`. */
  failed?: string;
}

/** What the operator observed and did. */
export interface AuthConfigStatus {
  /** The metadata.generation the operator last acted on. */
  observedGeneration?: number;
  /** Ready, Progressing, Degraded, Promotable and Phase3Ready. */
  conditions?: AuthConfigCondition[];
  /** Content hash of the env ConfigMap the target runs with (<name>-env-<hash>). */
  appliedHash?: string;
  /** The hash applied before it, for rollback. */
  previousHash?: string;
  /** Where the API_AUTH_MODE rollout stands. */
  rollout?: RolloutStatus;
}

/** One aspect of the current state (Kubernetes API conventions, "Typical status properties"). */
export interface AuthConfigCondition {
  /** Which aspect. */
  type: 'Ready' | 'Progressing' | 'Degraded' | 'Promotable' | 'Phase3Ready';
  /** Whether it holds. */
  status: 'True' | 'False' | 'Unknown';
  /** Why, in CamelCase, e.g. InvalidSpec or InsufficientSamples. */
  reason: string;
  /** Why, for humans. */
  message: string;
  /** The metadata.generation this condition was computed from. */
  observedGeneration?: number;
  /** When status last changed. */
  lastTransitionTime: string;
}

/** Where the API_AUTH_MODE rollout stands. */
export interface RolloutStatus {
  /** The API_AUTH_MODE the gateway was given. */
  effectiveMode: ApiAuthMode;
  /** When the effective mode was entered. */
  since: string;
  /** The rollout phase: 0 disabled, 1 warn, 2 enforce, 3 enforce soaked for minEnforceSoak. */
  phase?: number;
  /** Analyses in a row over the threshold (in enforce: towards a fallback). */
  consecutiveBadChecks: number;
  /** Analyses in a row whose queries failed (never a pass). */
  consecutiveQueryErrors: number;
  /** The latest analysis, whatever it concluded. */
  lastAnalysis?: AnalysisRecord;
  /** Transitions, oldest first; the last 50 are kept. */
  history: RolloutHistoryRecord[];
}

/** One change of the effective API_AUTH_MODE. */
export interface RolloutHistoryRecord {
  /** When. */
  at: string;
  /** An API_AUTH_MODE: disabled (the gate checks nothing), warn (failures pass, counted as would-deny), enforce (failures are refused with 401). */
  from: ApiAuthMode;
  /** An API_AUTH_MODE: disabled (the gate checks nothing), warn (failures pass, counted as would-deny), enforce (failures are refused with 401). */
  to: ApiAuthMode;
  /** Why, e.g. Promoted, Fallback or RollbackRequested. */
  reason: string;
  /** The analysis figures a decision saw. */
  figures: RolloutFigures;
}

/** The analysis figures a decision saw. */
export interface RolloutFigures {
  /** Gated requests in the analysis window. */
  gatedRequests?: number;
  /** warn: would_deny / gated requests; enforce: fail / gated requests. */
  failureRatio?: number;
  /** Bad checks in a row at the time. */
  consecutiveBadChecks?: number;
  /** Why the metrics could not be read. */
  error?: string;
}

/** The latest analysis, whatever it concluded. */
export interface AnalysisRecord {
  /** Whether the queries answered (then the figures are set, else error). */
  ok: boolean;
  /** When it ran. */
  at: string;
  /** The effective mode it measured. */
  mode: ApiAuthMode;
  /** Gated requests in the window. */
  gatedRequests?: number;
  /** The ratio compared with maxWouldDenyRatio. */
  failureRatio?: number;
  /** Why the metrics could not be read. */
  error?: string;
}
