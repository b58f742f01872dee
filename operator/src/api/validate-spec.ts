import { gateRequirementProblems } from '../../../gateway/src/operator-api.ts';
import {
  validateAuthDeployment,
  type AuthDeploymentInput,
} from '../../../plugins/auth/src/deployment/validate.ts';
import { applyDefaults } from './defaults.ts';
import { fieldOf, MANAGED_VARIABLES, plainVariables, secretVariables } from './env-mapping.ts';
import {
  checkVariable,
  GATEWAY_VARIABLES,
  isSecretVariable,
  PLUGIN_DEPENDENCIES,
} from './gateway-variables.ts';
import { parseDuration } from './rollout-settings.ts';
import { specSchema } from './spec-schema.ts';
import { checkStructure } from './structural.ts';
import type { AuthConfigSpec } from './types.generated.ts';

/** One reason an AuthConfig cannot be rolled out. */
export interface SpecProblem {
  /** The field at fault, from the object root, e.g. `spec.oidc.enabled` or `spec.env[2].name`. */
  field: string;
  /** The environment variable concerned, when there is one. */
  variable?: string;
  message: string;
}

export type SpecVerdict = { ok: true; spec: AuthConfigSpec } | { ok: false; problems: SpecProblem[] };

/**
 * Validates an AuthConfig's spec with the gateway's own rules, so an AuthConfig the gateway would refuse to boot
 * with is marked InvalidSpec and never rolled out (docs/adr/0007-operator.md, "Requirements"). The spec is taken
 * as it comes (`unknown`: the API server's checks may not have run) and returned defaulted and typed when valid.
 *
 * - the CRD's structure (types, enums, patterns, unknown fields), as the API server checks it;
 * - each rendered variable's value, by the zod schemas the gateway parses it with at boot;
 * - `validateAuthDeployment` (the auth plugin's boot rules) and the API gate's requirements (secrets for
 *   warn/enforce);
 * - GATEWAY_PLUGINS dependencies, and env/secretEnv names the gateway knows;
 * - the rollout policy's own consistency.
 *
 * Every problem is reported, not just the first, as the gateway does at boot (docs/configuration.md, "Invalid
 * configuration").
 */
export function validateSpec(input: unknown): SpecVerdict {
  const defaulted = applyDefaults(specSchema, input);
  const structural = checkStructure(specSchema, defaulted, 'spec');
  if (structural.length > 0)
    return { ok: false, problems: structural.map(({ path, message }) => ({ field: path, message })) };
  const spec = defaulted as AuthConfigSpec;
  const problems = [
    ...pluginProblems(spec),
    ...nameProblems(spec),
    ...valueProblems(spec),
    ...authProblems(spec),
    ...gateProblems(spec),
    ...rolloutProblems(spec),
  ];
  return problems.length > 0 ? { ok: false, problems: dedupe(problems) } : { ok: true, spec };
}

function problemFor(spec: AuthConfigSpec, variable: string, message: string, fallback: string): SpecProblem {
  return { field: `spec.${fieldOf(spec, variable) ?? fallback}`, variable, message };
}

/** A plugin needs the plugins it depends on (ADR 0001, `dependsOn`), worded as the gateway's loader says it. */
function pluginProblems(spec: AuthConfigSpec): SpecProblem[] {
  return spec.plugins.flatMap((id) =>
    (PLUGIN_DEPENDENCIES.get(id) ?? [])
      .filter((dependency) => !spec.plugins.includes(dependency as AuthConfigSpec['plugins'][number]))
      .map((dependency) => ({
        field: 'spec.plugins',
        variable: 'GATEWAY_PLUGINS',
        message: `plugin ${id} depends on plugin "${dependency}", which is not enabled (add it to plugins)`,
      })),
  );
}

/** env and secretEnv: names the gateway reads, each given once, secrets only from Secrets. */
function nameProblems(spec: AuthConfigSpec): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const secretNames = new Set(spec.secretEnv.map((entry) => entry.name));
  const check = (list: 'env' | 'secretEnv', index: number, name: string) => {
    const field = `spec.${list}[${index}].name`;
    const add = (message: string) => problems.push({ field, variable: name, message });
    if (MANAGED_VARIABLES.includes(name))
      add(`is set by spec.${fieldOf(spec, name)}; remove it from ${list}`);
    else if (name.endsWith('_FILE'))
      add(`NAME_FILE variables are not supported; reference the Secret in secretEnv`);
    else if (!GATEWAY_VARIABLES.has(name)) add('is not a setting of the gateway or of a built-in plugin');
    else if (list === 'env' && isSecretVariable(name))
      add('is a secret: reference it from a Secret in secretEnv');
    else if (list === 'env' && secretNames.has(name)) add('is also in secretEnv: give it once');
  };
  spec.env.forEach((entry, index) => check('env', index, entry.name));
  spec.secretEnv.forEach((entry, index) => check('secretEnv', index, entry.name));
  return problems;
}

/** Each plain value as the gateway parses it at boot, with the mode the SRE asked for. */
function valueProblems(spec: AuthConfigSpec): SpecProblem[] {
  return [...plainVariables(spec, spec.apiAuth.mode)].flatMap(([variable, value]) =>
    checkVariable(variable, value).map((message) => problemFor(spec, variable, message, 'env')),
  );
}

/**
 * The auth plugin's boot rules, by its own function. The requirements (AUTH_MODE, AUTH_SECRET) only hold
 * when the auth plugin runs; contradictions (local with OIDC enabled, oidc with LDAP) are refused always.
 */
function authProblems(spec: AuthConfigSpec): SpecProblem[] {
  const input: AuthDeploymentInput = {
    appEnv: spec.appEnv,
    authMode: spec.authMode,
    oidcEnabled: spec.oidc.enabled,
    oidcIssuer: spec.oidc.issuer,
    oidcClientId: spec.oidc.clientId,
    ldapEnabled: spec.ldap.enabled,
    ldapMode: spec.ldap.mode,
    breakGlass: spec.breakGlass,
    bootstrapAdminEmail: spec.bootstrapAdminEmail,
    appBaseUrl: spec.appBaseUrl,
    webauthnRpId: spec.webauthn.rpId,
    webauthnOrigins: spec.webauthn.origins,
    hasAuthSecret: secretVariables(spec).has('AUTH_SECRET'),
    ldapUrl: spec.ldap.url,
    ldapUserBase: spec.ldap.userBase,
    ldapBind: spec.ldap.bindDn !== undefined && spec.ldap.bindPasswordRef !== undefined,
  };
  const verdict = validateAuthDeployment(input);
  if (verdict.ok) return [];
  const authEnabled = spec.plugins.includes('auth');
  return verdict.problems
    .filter(({ variable }) => authEnabled || (variable !== 'AUTH_MODE' && variable !== 'AUTH_SECRET'))
    .map(({ variable, message }) => problemFor(spec, variable, message, 'secretEnv'));
}

/**
 * The API gate's requirements (gateway/src/gate/config.ts), by the gate's own function: a referenced
 * secret is passed as `NAME_FILE`, which the rule counts as given without reading it.
 */
function gateProblems(spec: AuthConfigSpec): SpecProblem[] {
  const env: Record<string, string> = Object.fromEntries(plainVariables(spec, spec.apiAuth.mode));
  for (const [variable, ref] of secretVariables(spec))
    env[`${variable}_FILE`] = `secret ${ref.name}/${ref.key}`;
  return gateRequirementProblems(env, spec.appEnv === 'development').map((problem) => {
    const [variable = '', ...rest] = problem.split(': ');
    return problemFor(spec, variable, rest.join(': '), 'secretEnv');
  });
}

/** The rollout policy's consistency (the CRD's CEL rules on apiAuth.rollout, for what gets past them). */
function rolloutProblems(spec: AuthConfigSpec): SpecProblem[] {
  const policy = spec.apiAuth.rollout;
  const field = (name: string) => `spec.apiAuth.rollout.${name}`;
  const problems: SpecProblem[] = [];
  if (parseDuration(policy.minWarnSoak) > parseDuration(policy.maxWarnSoak))
    problems.push({ field: field('minWarnSoak'), message: 'must not be longer than maxWarnSoak' });
  if (parseDuration(policy.analysisInterval) < 10)
    problems.push({ field: field('analysisInterval'), message: 'must be at least 10s' });
  if (parseDuration(policy.analysisWindow) < parseDuration(policy.analysisInterval))
    problems.push({ field: field('analysisWindow'), message: 'must be at least analysisInterval' });
  if (spec.apiAuth.mode !== 'disabled' && policy.automaticPromotion && policy.prometheus.url === undefined)
    problems.push({
      field: field('prometheus.url'),
      message: 'is required for automatic promotion (or set automaticPromotion: false)',
    });
  return problems;
}

function dedupe(problems: SpecProblem[]): SpecProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.field}\u0000${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
