import { MANAGED_VARIABLES } from './env-mapping.ts';
import { PLUGIN_DEPENDENCIES } from './gateway-variables.ts';
import type { ValidationRule } from './json-schema.ts';
import { MAX_NAME_LENGTH } from './names.ts';

/**
 * The CRD's `x-kubernetes-validations`: the gateway's boot rules (plugins/auth/src/deployment/validate.ts,
 * gateway/src/gate/config.ts) written in CEL, so the API server refuses an AuthConfig the gateway would refuse
 * to boot with. They only use standard CEL and the Kubernetes strings extension (indexOf, lastIndexOf,
 * substring), and every string, list and map they touch has a maxLength/maxItems in the schema, which the
 * API server's cost estimate needs. validateSpec applies the same rules (and more) to what gets through.
 *
 * In an object, the API server fills in the schema's defaults before it validates, so `self.oidc.enabled`,
 * `self.plugins`, `self.secretEnv` and the like are present there. But when the CRD is created, the server
 * also checks each `default` against the rules of its own node, as written and without filling in the
 * defaults nested inside it: a rule on a node whose default is `{}` must therefore hold on `{}`. Such rules
 * guard every field they read with `has()` (see `whenPresent`), which changes nothing for objects.
 */

const list = (values: readonly string[]): string => `[${values.map((value) => `'${value}'`).join(', ')}]`;

/** The host of an origin `o` (`scheme://host[:port]`, as the schema's pattern admits), in CEL. */
function originHost(o: string): string {
  return `${o}.substring(${o}.indexOf('://') + 3, ${o}.lastIndexOf(':') > ${o}.indexOf('://') ? ${o}.lastIndexOf(':') : size(${o}))`;
}

/**
 * `rule` when every field of `self` it names is present, true otherwise: the form a rule on a node with a
 * `default: {}` needs (see above).
 */
function whenPresent(fields: readonly string[], rule: string): string {
  return [...fields.map((field) => `!has(self.${field})`), `(${rule})`].join(' || ');
}

const hasSecret = (name: string): string => `self.secretEnv.exists(s, s.name == '${name}')`;

/**
 * `messaging` needs `auth`, ... taken from the gateway's built-in plugins: the gateway refuses to boot with a
 * plugin whose dependencies are not enabled (ADR 0001, `dependsOn`).
 */
function pluginDependencyRule(): ValidationRule {
  const pairs = [...PLUGIN_DEPENDENCIES].flatMap(([id, dependencies]) =>
    dependencies.map((dependency) => ({ id, dependency })),
  );
  return {
    rule:
      pairs.length === 0
        ? 'true'
        : pairs
            .map(({ id, dependency }) => `(!('${id}' in self.plugins) || '${dependency}' in self.plugins)`)
            .join(' && '),
    message: `plugins: a plugin is enabled without a plugin it depends on (${pairs
      .map(({ id, dependency }) => `${id} needs ${dependency}`)
      .join(', ')})`,
    fieldPath: '.plugins',
    reason: 'FieldValueInvalid',
  };
}

export const CEL_RULES = {
  // AUTH_MODE is required when APP_ENV is not development (only the auth plugin reads it;
  // plugins/auth/README.md, "Deployment settings").
  authModeRequired: {
    rule: "has(self.authMode) || self.appEnv == 'development' || !('auth' in self.plugins)",
    message: 'authMode (AUTH_MODE) is required unless appEnv is development: local, oidc or local+oidc',
    fieldPath: '.authMode',
    reason: 'FieldValueRequired',
  },
  // AUTH_MODE=local with OIDC_ENABLED=true refuses boot (plugins/auth/README.md, "Deployment settings").
  localWithOidcEnabled: {
    rule: "!(has(self.authMode) && self.authMode == 'local' && self.oidc.enabled)",
    message:
      'oidc.enabled (OIDC_ENABLED) cannot be true with authMode local: use authMode local+oidc, or drop the deprecated oidc.enabled',
    fieldPath: '.oidc.enabled',
    reason: 'FieldValueInvalid',
  },
  // LDAP_ENABLED=true with AUTH_MODE=oidc refuses boot (plugins/auth/README.md, "Deployment settings").
  ldapWithOidcMode: {
    rule: "!(self.ldap.enabled && has(self.authMode) && self.authMode == 'oidc')",
    message:
      'ldap.enabled (LDAP_ENABLED) cannot be true with authMode oidc: directory passwords are password logins',
    fieldPath: '.ldap.enabled',
    reason: 'FieldValueInvalid',
  },
  // Single sign-on needs an issuer and the client id. The mode includes oidc when it says so, or, in
  // development with authMode unset, when oidc.enabled is true (plugins/auth/README.md, "Deployment settings").
  oidcProviderRequired: {
    rule: "!(has(self.authMode) ? self.authMode != 'local' : (self.appEnv == 'development' && self.oidc.enabled)) || (has(self.oidc.issuer) && has(self.oidc.clientId))",
    message:
      'oidc.issuer (OIDC_ISSUER) and oidc.clientId (OIDC_CLIENT_ID) are required when the mode includes oidc',
    fieldPath: '.oidc',
    reason: 'FieldValueRequired',
  },
  // LDAP sign-in searches with a service account, then binds as the user.
  ldapSettingsRequired: {
    rule: "!self.ldap.enabled || (has(self.authMode) && self.authMode == 'oidc') || (has(self.ldap.url) && has(self.ldap.userBase) && has(self.ldap.bindDn) && has(self.ldap.bindPasswordRef))",
    message:
      'ldap.url, ldap.userBase, ldap.bindDn and ldap.bindPasswordRef are required when ldap.enabled is true',
    fieldPath: '.ldap',
    reason: 'FieldValueRequired',
  },
  // Session cookies are Auth.js tokens made with AUTH_SECRET (plugins/auth/README.md, "Deployment settings").
  authSecretRequired: {
    rule: `self.appEnv == 'development' || !('auth' in self.plugins) || ${hasSecret('AUTH_SECRET')}`,
    message:
      'secretEnv must reference AUTH_SECRET unless appEnv is development (session cookies are made with it)',
    fieldPath: '.secretEnv',
    reason: 'FieldValueRequired',
  },
  // gateway/src/gate/config.ts: API_AUTH_MODE warn or enforce needs both gate secrets.
  gateSecretsRequired: {
    rule: `self.apiAuth.mode == 'disabled' || (${hasSecret('INTERNAL_API_SECRET')} && ${hasSecret('AUTH_SECRET')})`,
    message:
      'secretEnv must reference INTERNAL_API_SECRET and AUTH_SECRET when apiAuth.mode is warn or enforce',
    fieldPath: '.secretEnv',
    reason: 'FieldValueRequired',
  },
  // Passkeys outside development need HTTPS origins, localhost allowed (plugins/auth/README.md, "Deployment
  // settings"). Mirrors the explicit-origins case of validateAuthDeployment (the relying party must resolve: an
  // rpId, given or from appBaseUrl).
  webauthnOriginsHttps: {
    rule: `self.appEnv == 'development' || !(has(self.webauthn.rpId) || has(self.appBaseUrl)) || !has(self.webauthn.origins) || self.webauthn.origins.all(o, o.startsWith('https://') || ${originHost('o')} == 'localhost')`,
    message:
      'webauthn.origins (WEBAUTHN_ORIGINS) must be https outside localhost unless appEnv is development',
    fieldPath: '.webauthn.origins',
    reason: 'FieldValueInvalid',
  },
  pluginDependencies: pluginDependencyRule(),
  envNotAlsoSecret: {
    rule: 'self.env.all(e, !self.secretEnv.exists(s, s.name == e.name))',
    message: 'a variable is in both env and secretEnv: give it once',
    fieldPath: '.env',
    reason: 'FieldValueDuplicate',
  },
  // The relying-party id must be the domain of every serving origin, or browsers refuse the passkeys
  // (plugins/auth/README.md, "Deployment settings").
  rpIdDomainOfOrigins: {
    rule: `!has(self.rpId) || !has(self.origins) || self.origins.all(o, ${originHost('o')} == self.rpId || ${originHost('o')}.endsWith('.' + self.rpId))`,
    message: 'webauthn.rpId (WEBAUTHN_RP_ID) must be the host of every origin or a parent domain of it',
    fieldPath: '.rpId',
    reason: 'FieldValueInvalid',
  },
  ldapUserFilterHasEmail: {
    rule: "self.contains('{email}')",
    message: 'ldap.userFilter (LDAP_USER_FILTER) must contain {email}',
    reason: 'FieldValueInvalid',
  },
  envNotManaged: {
    rule: `!(self.name in ${list(MANAGED_VARIABLES)})`,
    message: 'env: this variable is set by its own spec field (see the AuthConfig reference)',
    fieldPath: '.name',
    reason: 'FieldValueForbidden',
  },
  envNoFileVariant: {
    rule: "!self.name.endsWith('_FILE')",
    message: 'env: NAME_FILE variables are not supported; reference the Secret in secretEnv instead',
    fieldPath: '.name',
    reason: 'FieldValueForbidden',
  },
  secretEnvNotManaged: {
    rule: `!(self.name in ${list(MANAGED_VARIABLES)})`,
    message:
      'secretEnv: this variable is set by its own spec field (oidc.clientSecretRef, ldap.bindPasswordRef or a plain field)',
    fieldPath: '.name',
    reason: 'FieldValueForbidden',
  },
  secretEnvNoFileVariant: {
    rule: "!self.name.endsWith('_FILE')",
    message: 'secretEnv: name the variable itself (e.g. AUTH_SECRET), not its NAME_FILE variant',
    fieldPath: '.name',
    reason: 'FieldValueForbidden',
  },
  // Warn is observed 24 to 72 hours by default (docs/api-auth-gate.md, "Phase plan"): the minimum first.
  warnSoakOrder: {
    rule: whenPresent(
      ['minWarnSoak', 'maxWarnSoak'],
      'duration(self.minWarnSoak) <= duration(self.maxWarnSoak)',
    ),
    message: 'minWarnSoak must not be longer than maxWarnSoak',
    fieldPath: '.minWarnSoak',
    reason: 'FieldValueInvalid',
  },
  analysisIntervalFloor: {
    rule: whenPresent(['analysisInterval'], "duration(self.analysisInterval) >= duration('10s')"),
    message: 'analysisInterval must be at least 10s',
    fieldPath: '.analysisInterval',
    reason: 'FieldValueInvalid',
  },
  analysisWindowCoversInterval: {
    rule: whenPresent(
      ['analysisWindow', 'analysisInterval'],
      'duration(self.analysisWindow) >= duration(self.analysisInterval)',
    ),
    message: 'analysisWindow must be at least analysisInterval, or requests between checks go unseen',
    fieldPath: '.analysisWindow',
    reason: 'FieldValueInvalid',
  },
  prometheusRequired: {
    rule: whenPresent(
      ['mode', 'rollout', 'rollout.automaticPromotion', 'rollout.prometheus'],
      "self.mode == 'disabled' || !self.rollout.automaticPromotion || has(self.rollout.prometheus.url)",
    ),
    message:
      'rollout.prometheus.url is required for automatic promotion (or set rollout.automaticPromotion: false)',
    fieldPath: '.rollout.prometheus.url',
    reason: 'FieldValueRequired',
  },
  // The name is a label value on what the operator creates, and the prefix of its ConfigMaps' names.
  nameLength: {
    rule: `!has(self.metadata.name) || size(self.metadata.name) <= ${MAX_NAME_LENGTH}`,
    message: `metadata.name must be at most ${MAX_NAME_LENGTH} characters`,
    reason: 'FieldValueInvalid',
  },
} satisfies Record<string, ValidationRule>;

export type CelRuleId = keyof typeof CEL_RULES;

export const ROOT_RULES: ValidationRule[] = [CEL_RULES.nameLength];
export const SPEC_RULES: ValidationRule[] = [
  CEL_RULES.authModeRequired,
  CEL_RULES.localWithOidcEnabled,
  CEL_RULES.ldapWithOidcMode,
  CEL_RULES.oidcProviderRequired,
  CEL_RULES.ldapSettingsRequired,
  CEL_RULES.authSecretRequired,
  CEL_RULES.gateSecretsRequired,
  CEL_RULES.webauthnOriginsHttps,
  CEL_RULES.pluginDependencies,
  CEL_RULES.envNotAlsoSecret,
];
export const WEBAUTHN_RULES: ValidationRule[] = [CEL_RULES.rpIdDomainOfOrigins];
export const LDAP_USER_FILTER_RULES: ValidationRule[] = [CEL_RULES.ldapUserFilterHasEmail];
export const ENV_ITEM_RULES: ValidationRule[] = [CEL_RULES.envNotManaged, CEL_RULES.envNoFileVariant];
export const SECRET_ENV_ITEM_RULES: ValidationRule[] = [
  CEL_RULES.secretEnvNotManaged,
  CEL_RULES.secretEnvNoFileVariant,
];
export const ANALYSIS_RULES: ValidationRule[] = [
  CEL_RULES.warnSoakOrder,
  CEL_RULES.analysisIntervalFloor,
  CEL_RULES.analysisWindowCoversInterval,
];
export const API_AUTH_RULES: ValidationRule[] = [CEL_RULES.prometheusRequired];
