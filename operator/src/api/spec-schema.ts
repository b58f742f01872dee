import { API_AUTH_MODES, DEFAULT_PLUGINS, GATE_METRIC_NAMES } from '../../../gateway/src/operator-api.ts';
import { AUTH_MODES, LDAP_MODES } from '../../../plugins/auth/src/deployment/validate.ts';
import {
  ANALYSIS_RULES,
  API_AUTH_RULES,
  ENV_ITEM_RULES,
  LDAP_USER_FILTER_RULES,
  SECRET_ENV_ITEM_RULES,
  SPEC_RULES,
  WEBAUTHN_RULES,
} from './cel-rules.ts';
import { PLUGIN_IDS } from './gateway-variables.ts';
import type { JsonSchema } from './json-schema.ts';

/**
 * The AuthConfig's `spec`: every deployment setting of the gateway (sign-in, the API gate's API_AUTH_MODE and its
 * secrets, the plugins), plus the target Deployment and the rollout policy (docs/adr/0007-operator.md,
 * "Requirements"). This file is the source of truth: `node operator/scripts/generate-crd.ts` writes the CRD YAML
 * and the TypeScript types from it, and a test fails when either is stale. Each field's description names the
 * variable it becomes, spelled exactly as the gateway reads it: the environment is the contract between the
 * operator and the gateway (docs/configuration.md).
 */

const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
const DNS_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** Go-style durations limited to hours, minutes and seconds, e.g. `24h`, `1h30m`, `90s` (CEL's `duration()`). */
export const DURATION_PATTERN = '^([0-9]+h([0-9]+m)?([0-9]+s)?|[0-9]+m([0-9]+s)?|[0-9]+s)$';
/** An environment variable's name as the gateway reads them: upper case, digits and underscores. */
export const ENV_NAME_PATTERN = '^[A-Z][A-Z0-9_]*$';

function text(maxLength: number, description: string, extra: Partial<JsonSchema> = {}): JsonSchema {
  return { type: 'string', maxLength, description, ...extra };
}

function duration(defaultValue: string, description: string): JsonSchema {
  return { type: 'string', pattern: DURATION_PATTERN, maxLength: 32, default: defaultValue, description };
}

/** A key of a Secret in the AuthConfig's namespace (what a container's `secretKeyRef` holds). */
export const secretKeyRefSchema: JsonSchema = {
  type: 'object',
  description:
    'A key of a Secret in the AuthConfig namespace, referenced by the pods; the operator only digests the Secret to roll the pods when it changes.',
  required: ['name', 'key'],
  properties: {
    name: text(253, 'Name of the Secret.', { pattern: DNS_SUBDOMAIN }),
    key: text(253, 'Key within the Secret.', { pattern: '^[-._a-zA-Z0-9]+$' }),
  },
};

export const targetSchema: JsonSchema = {
  type: 'object',
  description: 'The gateway Deployment the settings are rolled out to, in the AuthConfig namespace.',
  required: ['name'],
  properties: {
    name: text(253, 'Name of the Deployment.', { pattern: DNS_SUBDOMAIN }),
    container: text(63, 'The container that runs the gateway. Default: the first container.', {
      pattern: DNS_LABEL,
    }),
  },
};

export const oidcSchema: JsonSchema = {
  type: 'object',
  description: 'OpenID Connect single sign-on (the OIDC_* settings of the auth plugin).',
  default: {},
  properties: {
    enabled: {
      type: 'boolean',
      default: false,
      description:
        'OIDC_ENABLED, deprecated and superseded by authMode. true with authMode local is invalid (the gateway refuses to boot). Rendered only when true.',
    },
    kind: text(63, 'OIDC_KIND: generic or a provider label; affects log labels only.', {
      default: 'generic',
    }),
    issuer: text(2048, 'OIDC_ISSUER: serves discovery at <issuer>/.well-known/openid-configuration.', {
      pattern: '^https?://',
    }),
    clientId: text(512, 'OIDC_CLIENT_ID: the one client id published to every client.', { minLength: 1 }),
    clientSecretRef: {
      ...secretKeyRefSchema,
      description: 'OIDC_CLIENT_SECRET, from a Secret. Optional: PKCE alone is valid.',
    },
  },
};

export const ldapSchema: JsonSchema = {
  type: 'object',
  description: 'Directory passwords (the LDAP_* settings of the auth plugin).',
  default: {},
  properties: {
    enabled: {
      type: 'boolean',
      default: false,
      description: 'LDAP_ENABLED. true with authMode oidc is invalid (the gateway refuses to boot).',
    },
    mode: {
      type: 'string',
      enum: [...LDAP_MODES],
      description:
        'LDAP_MODE: mixed (default: local and directory passwords) or only (directory passwords; a local password only for break-glass admins). only needs enabled.',
    },
    url: text(2048, 'LDAP_URL: ldap:// or ldaps://. Required when enabled.', { pattern: '^ldaps?://' }),
    bindDn: text(1024, 'LDAP_BIND_DN: the service account that searches for users. Required when enabled.', {
      minLength: 1,
    }),
    bindPasswordRef: {
      ...secretKeyRefSchema,
      description: 'LDAP_BIND_PASSWORD, from a Secret. Required when enabled.',
    },
    userBase: text(1024, 'LDAP_USER_BASE: where users are searched. Required when enabled.', {
      minLength: 1,
    }),
    userFilter: text(1024, 'LDAP_USER_FILTER: must contain {email}.', {
      default: '(mail={email})',
      'x-kubernetes-validations': LDAP_USER_FILTER_RULES,
    }),
    groupBase: text(1024, 'LDAP_GROUP_BASE: where groupOfNames groups are searched. Unset: no group roles.', {
      minLength: 1,
    }),
    groupRoles: {
      type: 'object',
      description: 'LDAP_GROUP_ROLES: directory group (cn) to gateway role, rendered as a JSON object.',
      maxProperties: 64,
      additionalProperties: { type: 'string', maxLength: 256 },
    },
    startTls: { type: 'boolean', default: false, description: 'LDAP_START_TLS: StartTLS on ldap:// URLs.' },
    timeoutMs: {
      type: 'integer',
      default: 5000,
      minimum: 100,
      maximum: 60000,
      description: 'LDAP_TIMEOUT_MS: connect and operation timeout.',
    },
  },
};

export const webauthnSchema: JsonSchema = {
  type: 'object',
  description: 'Passkey relying party (WEBAUTHN_*). Unset values derive from appBaseUrl.',
  default: {},
  'x-kubernetes-validations': WEBAUTHN_RULES,
  properties: {
    rpId: text(253, 'WEBAUTHN_RP_ID: a lower-case hostname, the registrable domain of every origin.', {
      pattern: DNS_SUBDOMAIN,
    }),
    origins: {
      type: 'array',
      description:
        'WEBAUTHN_ORIGINS: origins (scheme, lower-case host, optional port), https outside localhost.',
      maxItems: 16,
      'x-kubernetes-list-type': 'set',
      items: {
        type: 'string',
        maxLength: 300,
        pattern: '^https?://[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(:[0-9]{1,5})?$',
      },
    },
  },
};

export const envVarSchema: JsonSchema = {
  type: 'object',
  description: 'A further plain setting of the gateway or a plugin (not a secret), e.g. LOG_LEVEL.',
  required: ['name', 'value'],
  'x-kubernetes-validations': ENV_ITEM_RULES,
  properties: {
    name: text(128, 'The variable name.', { pattern: ENV_NAME_PATTERN }),
    value: text(65536, 'Its value.'),
  },
};

export const secretEnvVarSchema: JsonSchema = {
  type: 'object',
  description: 'A secret setting, e.g. AUTH_SECRET, taken from a Secret key.',
  required: ['name', 'secretKeyRef'],
  'x-kubernetes-validations': SECRET_ENV_ITEM_RULES,
  properties: {
    name: text(128, 'The variable name.', { pattern: ENV_NAME_PATTERN }),
    secretKeyRef: secretKeyRefSchema,
  },
};

export const apiAuthModeSchema: JsonSchema = {
  type: 'string',
  enum: [...API_AUTH_MODES],
  description:
    'An API_AUTH_MODE: disabled (the gate checks nothing), warn (failures pass, counted as would-deny), enforce (failures are refused with 401).',
};

export const prometheusQueriesSchema: JsonSchema = {
  type: 'object',
  description:
    'PromQL instant queries, each returning one number over the analysis window. Placeholders: {{window}} (analysisWindow), {{namespace}} (the AuthConfig namespace), {{mode}} (the mode analysed: warn or enforce). The defaults read the per-request verdict counter, so a request failing both gate layers counts once.',
  default: {},
  properties: {
    gatedRequests: text(4096, 'Gated requests in the window in the analysed mode (the sample size).', {
      default: `sum(increase(${GATE_METRIC_NAMES.requests}{namespace="{{namespace}}",mode="{{mode}}"}[{{window}}]))`,
    }),
    wouldDeny: text(4096, 'In warn: requests that enforce would have refused.', {
      default: `sum(increase(${GATE_METRIC_NAMES.requests}{namespace="{{namespace}}",mode="warn",outcome="would_deny"}[{{window}}]))`,
    }),
    failed: text(4096, 'In enforce: requests refused with 401.', {
      default: `sum(increase(${GATE_METRIC_NAMES.requests}{namespace="{{namespace}}",mode="enforce",outcome="fail"}[{{window}}]))`,
    }),
  },
};

export const prometheusSchema: JsonSchema = {
  type: 'object',
  description: 'Where the rollout analysis reads the gate metric.',
  default: {},
  properties: {
    url: text(
      2048,
      'Base URL of the Prometheus HTTP API. Without it nothing is ever promoted automatically.',
      {
        pattern: '^https?://',
      },
    ),
    queries: prometheusQueriesSchema,
  },
};

export const rolloutPolicySchema: JsonSchema = {
  type: 'object',
  description:
    'How the effective API_AUTH_MODE moves towards apiAuth.mode, one step at a time (the phase plan: warn observed 24 to 72 hours, enforce soaked 7 or more days).',
  default: {},
  'x-kubernetes-validations': ANALYSIS_RULES,
  properties: {
    automaticPromotion: {
      type: 'boolean',
      default: true,
      description: 'Promote warn to enforce when the analysis passes; false leaves the promotion to a human.',
    },
    minWarnSoak: duration('24h', 'Least time in warn before a promotion.'),
    maxWarnSoak: duration('72h', 'Past this time in warn without a passing analysis, ask a human.'),
    minEnforceSoak: duration('168h', 'Time in enforce after which phase 3 is ready.'),
    maxWouldDenyRatio: {
      type: 'number',
      default: 0.01,
      minimum: 0,
      maximum: 1,
      description:
        'Highest share of gated requests that may fail the gate: would_deny in warn (to promote), fail in enforce (else a bad check).',
    },
    minGatedRequests: {
      type: 'integer',
      format: 'int64',
      default: 1000,
      minimum: 1,
      description: 'Fewest gated requests in the window for a verdict; fewer is inconclusive, never a pass.',
    },
    analysisInterval: duration('5m', 'How often the analysis runs.'),
    analysisWindow: duration('1h', 'The range the queries look back over ({{window}}).'),
    consecutiveFailuresBeforeFallback: {
      type: 'integer',
      default: 3,
      minimum: 1,
      maximum: 100,
      description: 'Bad checks in a row in enforce before the operator falls back to warn.',
    },
    prometheus: prometheusSchema,
  },
};

export const apiAuthSchema: JsonSchema = {
  type: 'object',
  description: "The gateway's API gate (API_AUTH_MODE) and its phased rollout.",
  default: {},
  'x-kubernetes-validations': API_AUTH_RULES,
  properties: {
    mode: {
      ...apiAuthModeSchema,
      default: 'disabled',
      description:
        'The API_AUTH_MODE the SRE wants. The operator moves the effective mode towards it one step at a time; disabled is applied at once (rollback).',
    },
    rollout: rolloutPolicySchema,
  },
};

export const specSchema: JsonSchema = {
  type: 'object',
  description: 'The gateway deployment settings this AuthConfig renders into environment variables.',
  required: ['target'],
  'x-kubernetes-validations': SPEC_RULES,
  properties: {
    target: targetSchema,
    appEnv: text(63, 'APP_ENV: development is the only special value.', {
      default: 'production',
      minLength: 1,
    }),
    appBaseUrl: text(2048, 'APP_BASE_URL: public URL of the web app; passkey defaults derive from it.', {
      pattern: '^https?://',
    }),
    authMode: {
      type: 'string',
      enum: [...AUTH_MODES],
      description: 'AUTH_MODE: the offered sign-in methods. Required unless appEnv is development.',
    },
    oidc: oidcSchema,
    bootstrapAdminEmail: text(
      254,
      'BOOTSTRAP_ADMIN_EMAIL: granted the admin role at its first OIDC sign-in.',
      {
        pattern: '^[^@\\s]+@[^@\\s]+$',
      },
    ),
    breakGlass: {
      type: 'boolean',
      default: true,
      description: 'AUTH_BREAK_GLASS: in oidc mode, admins may still sign in with a password.',
    },
    ldap: ldapSchema,
    webauthn: webauthnSchema,
    plugins: {
      type: 'array',
      description: 'GATEWAY_PLUGINS, in order. Each plugin needs the plugins it depends on.',
      default: [...DEFAULT_PLUGINS],
      maxItems: 16,
      'x-kubernetes-list-type': 'set',
      items: { type: 'string', enum: [...PLUGIN_IDS] },
    },
    secretEnv: {
      type: 'array',
      description:
        'Secret settings from Secret keys: INTERNAL_API_SECRET, AUTH_SECRET, DATABASE_URL, WEBHOOK_VERIFY_TOKEN, ... (the OIDC client secret and LDAP bind password have their own fields).',
      default: [],
      maxItems: 32,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: secretEnvVarSchema,
    },
    env: {
      type: 'array',
      description: 'Further plain settings of the gateway and its plugins, e.g. LOG_LEVEL or CORS_ORIGINS.',
      default: [],
      maxItems: 64,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: envVarSchema,
    },
    apiAuth: apiAuthSchema,
  },
};
