import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CEL_RULES, type CelRuleId } from './cel-rules.ts';
import { authConfigSchema } from './crd.ts';
import { applyDefaults } from './defaults.ts';
import { isJsonObject } from './json.ts';
import type { JsonSchema, ValidationRule } from './json-schema.ts';
import {
  admit,
  evaluateRule,
  ruleLocations,
  typeCheck,
} from '../../../test/support/operator/cel-admission.ts';
import {
  authConfig,
  gateSecrets,
  ldapSettings,
  minimalSpec,
  oidcSettings,
  secretRef,
  specWith,
} from '../../../test/support/operator/fixtures.ts';
import type { AuthConfigSpecInput } from './types.generated.ts';
import { validateSpec } from './validate-spec.ts';

/**
 * The CRD's CEL rules, evaluated by a real CEL implementation against example AuthConfigs: the exact rule
 * text that goes into operator/deploy/crd.yaml, with `self` typed and defaulted as the API server does.
 * Each rule has vectors that pass and vectors that fail; the table's type makes a rule without vectors a
 * compile error.
 */

interface Vector {
  name: string;
  spec: AuthConfigSpecInput;
  objectName?: string;
}

const { bindPasswordRef: _omitted, ...ldapWithoutPassword } = ldapSettings;
const warnWithPrometheus = {
  mode: 'warn' as const,
  rollout: { prometheus: { url: 'http://prometheus.monitoring.svc:9090' } },
};

const VECTORS: Record<CelRuleId, { valid: Vector[]; invalid: Vector[] }> = {
  authModeRequired: {
    valid: [
      { name: 'authMode set', spec: minimalSpec },
      { name: 'unset in development', spec: { target: { name: 'gatehouse' }, appEnv: 'development' } },
      { name: 'unset without the auth plugin', spec: { target: { name: 'gatehouse' }, plugins: ['kyc'] } },
    ],
    invalid: [
      {
        name: 'unset in production',
        spec: { target: { name: 'gatehouse' }, secretEnv: [secretRef('AUTH_SECRET')] },
      },
    ],
  },
  localWithOidcEnabled: {
    valid: [
      { name: 'local, oidc.enabled false', spec: specWith({ oidc: { enabled: false } }) },
      {
        name: 'local+oidc with oidc.enabled',
        spec: specWith({ authMode: 'local+oidc', oidc: { enabled: true, ...oidcSettings } }),
      },
      {
        name: 'development fallback with oidc.enabled',
        spec: {
          target: { name: 'gatehouse' },
          appEnv: 'development',
          oidc: { enabled: true, ...oidcSettings },
        },
      },
    ],
    invalid: [
      { name: 'AUTH_MODE=local with OIDC_ENABLED=true', spec: specWith({ oidc: { enabled: true } }) },
      { name: 'the same with a provider', spec: specWith({ oidc: { enabled: true, ...oidcSettings } }) },
    ],
  },
  ldapWithOidcMode: {
    valid: [
      { name: 'oidc without LDAP', spec: specWith({ authMode: 'oidc', oidc: oidcSettings }) },
      { name: 'local with LDAP', spec: specWith({ ldap: ldapSettings }) },
    ],
    invalid: [
      {
        name: 'LDAP_ENABLED=true with AUTH_MODE=oidc',
        spec: specWith({ authMode: 'oidc', oidc: oidcSettings, ldap: ldapSettings }),
      },
    ],
  },
  oidcProviderRequired: {
    valid: [
      { name: 'oidc with issuer and client', spec: specWith({ authMode: 'oidc', oidc: oidcSettings }) },
      { name: 'local needs neither', spec: minimalSpec },
    ],
    invalid: [
      { name: 'oidc without an issuer', spec: specWith({ authMode: 'oidc' }) },
      {
        name: 'local+oidc without a client id',
        spec: specWith({ authMode: 'local+oidc', oidc: { issuer: oidcSettings.issuer } }),
      },
      {
        name: 'development fallback to SSO without an issuer',
        spec: { target: { name: 'gatehouse' }, appEnv: 'development', oidc: { enabled: true } },
      },
    ],
  },
  ldapSettingsRequired: {
    valid: [
      { name: 'complete', spec: specWith({ ldap: ldapSettings }) },
      { name: 'disabled with a URL only', spec: specWith({ ldap: { url: 'ldap://ldap.example.com' } }) },
    ],
    invalid: [{ name: 'enabled without the bind password', spec: specWith({ ldap: ldapWithoutPassword }) }],
  },
  authSecretRequired: {
    valid: [
      { name: 'referenced', spec: minimalSpec },
      { name: 'development', spec: { target: { name: 'gatehouse' }, appEnv: 'development' } },
      {
        name: 'without the auth plugin',
        spec: { target: { name: 'gatehouse' }, authMode: 'local', plugins: ['kyc'] },
      },
    ],
    invalid: [{ name: 'production without it', spec: { target: { name: 'gatehouse' }, authMode: 'local' } }],
  },
  gateSecretsRequired: {
    valid: [
      { name: 'disabled needs no gate secret', spec: minimalSpec },
      {
        name: 'enforce with both',
        spec: specWith({ secretEnv: gateSecrets, apiAuth: { ...warnWithPrometheus, mode: 'enforce' } }),
      },
    ],
    invalid: [{ name: 'warn without INTERNAL_API_SECRET', spec: specWith({ apiAuth: warnWithPrometheus }) }],
  },
  webauthnOriginsHttps: {
    valid: [
      {
        name: 'https',
        spec: specWith({
          appBaseUrl: 'https://app.example.com',
          webauthn: { origins: ['https://app.example.com'] },
        }),
      },
      {
        name: 'http on localhost',
        spec: specWith({ webauthn: { rpId: 'localhost', origins: ['http://localhost:3000'] } }),
      },
      {
        name: 'http in development',
        spec: {
          target: { name: 'gatehouse' },
          appEnv: 'development',
          webauthn: { rpId: 'app.example.com', origins: ['http://app.example.com'] },
        },
      },
      {
        name: 'no relying party resolves (no rpId, no appBaseUrl): passkeys stay off',
        spec: specWith({ webauthn: { origins: ['http://app.example.com'] } }),
      },
    ],
    invalid: [
      {
        name: 'http outside localhost in production',
        spec: specWith({ webauthn: { rpId: 'app.example.com', origins: ['http://app.example.com'] } }),
      },
    ],
  },
  pluginDependencies: {
    valid: [
      { name: 'auth and kyc', spec: specWith({ plugins: ['auth', 'kyc'] }) },
      { name: 'messaging after auth, any order', spec: specWith({ plugins: ['kyc', 'messaging', 'auth'] }) },
    ],
    invalid: [
      { name: 'realtime without messaging', spec: specWith({ plugins: ['auth', 'realtime'] }) },
      {
        name: 'messaging without auth',
        spec: { target: { name: 'gatehouse' }, plugins: ['kyc', 'messaging'] },
      },
    ],
  },
  envNotAlsoSecret: {
    valid: [{ name: 'a plain setting', spec: specWith({ env: [{ name: 'LOG_LEVEL', value: 'debug' }] }) }],
    invalid: [
      {
        name: 'the same name in env and secretEnv',
        spec: specWith({
          env: [{ name: 'MESSAGING_API_BASE_URL', value: 'https://graph.example.com' }],
          secretEnv: [secretRef('AUTH_SECRET'), secretRef('MESSAGING_API_BASE_URL')],
        }),
      },
    ],
  },
  rpIdDomainOfOrigins: {
    valid: [
      {
        name: 'the domain of every origin',
        spec: specWith({
          webauthn: { rpId: 'example.com', origins: ['https://app.example.com', 'https://example.com:8443'] },
        }),
      },
      { name: 'rpId without origins or appBaseUrl', spec: specWith({ webauthn: { rpId: 'example.com' } }) },
    ],
    invalid: [
      {
        name: 'a look-alike domain',
        spec: specWith({ webauthn: { rpId: 'example.com', origins: ['https://evil-example.com'] } }),
      },
      {
        name: 'the domain as a subdomain of another',
        spec: specWith({ webauthn: { rpId: 'example.com', origins: ['https://example.com.evil.io:443'] } }),
      },
      {
        name: 'a child rpId for a parent origin',
        spec: specWith({ webauthn: { rpId: 'app.example.com', origins: ['https://example.com'] } }),
      },
    ],
  },
  ldapUserFilterHasEmail: {
    valid: [
      {
        name: 'with {email}',
        spec: specWith({ ldap: { ...ldapSettings, userFilter: '(&(objectClass=person)(mail={email}))' } }),
      },
    ],
    invalid: [
      { name: 'without {email}', spec: specWith({ ldap: { ...ldapSettings, userFilter: '(uid=admin)' } }) },
    ],
  },
  envNotManaged: {
    valid: [{ name: 'LOG_LEVEL', spec: specWith({ env: [{ name: 'LOG_LEVEL', value: 'warn' }] }) }],
    invalid: [
      { name: 'AUTH_MODE through env', spec: specWith({ env: [{ name: 'AUTH_MODE', value: 'oidc' }] }) },
      {
        name: 'API_AUTH_MODE through env (would bypass the rollout)',
        spec: specWith({ env: [{ name: 'API_AUTH_MODE', value: 'enforce' }] }),
      },
    ],
  },
  envNoFileVariant: {
    valid: [{ name: 'a plain name', spec: specWith({ env: [{ name: 'DATA_DIR', value: '/data' }] }) }],
    invalid: [
      {
        name: 'AUTH_SECRET_FILE',
        spec: specWith({ env: [{ name: 'AUTH_SECRET_FILE', value: '/run/secrets/auth' }] }),
      },
    ],
  },
  secretEnvNotManaged: {
    valid: [
      {
        name: 'DATABASE_URL',
        spec: specWith({ secretEnv: [secretRef('AUTH_SECRET'), secretRef('DATABASE_URL')] }),
      },
    ],
    invalid: [
      {
        name: 'OIDC_CLIENT_SECRET has its own field',
        spec: specWith({ secretEnv: [secretRef('AUTH_SECRET'), secretRef('OIDC_CLIENT_SECRET')] }),
      },
    ],
  },
  secretEnvNoFileVariant: {
    valid: [{ name: 'the variable itself', spec: specWith({ secretEnv: [secretRef('AUTH_SECRET')] }) }],
    invalid: [
      {
        name: 'DATABASE_URL_FILE',
        spec: specWith({ secretEnv: [secretRef('AUTH_SECRET'), secretRef('DATABASE_URL_FILE')] }),
      },
    ],
  },
  warnSoakOrder: {
    valid: [
      {
        name: '1h30m before 2h',
        spec: specWith({ apiAuth: { rollout: { minWarnSoak: '1h30m', maxWarnSoak: '2h' } } }),
      },
    ],
    invalid: [
      { name: '96h over the default 72h', spec: specWith({ apiAuth: { rollout: { minWarnSoak: '96h' } } }) },
    ],
  },
  analysisIntervalFloor: {
    valid: [{ name: '10s', spec: specWith({ apiAuth: { rollout: { analysisInterval: '10s' } } }) }],
    invalid: [{ name: '5s', spec: specWith({ apiAuth: { rollout: { analysisInterval: '5s' } } }) }],
  },
  analysisWindowCoversInterval: {
    valid: [
      {
        name: 'equal',
        spec: specWith({ apiAuth: { rollout: { analysisInterval: '5m', analysisWindow: '5m' } } }),
      },
    ],
    invalid: [
      {
        name: 'window shorter than the interval',
        spec: specWith({ apiAuth: { rollout: { analysisInterval: '10m', analysisWindow: '5m' } } }),
      },
    ],
  },
  prometheusRequired: {
    valid: [
      { name: 'disabled', spec: minimalSpec },
      {
        name: 'warn with manual promotion',
        spec: specWith({
          secretEnv: gateSecrets,
          apiAuth: { mode: 'warn', rollout: { automaticPromotion: false } },
        }),
      },
      { name: 'warn with a URL', spec: specWith({ secretEnv: gateSecrets, apiAuth: warnWithPrometheus }) },
    ],
    invalid: [
      {
        name: 'automatic promotion without a URL',
        spec: specWith({ secretEnv: gateSecrets, apiAuth: { mode: 'warn' } }),
      },
    ],
  },
  nameLength: {
    valid: [{ name: '63 characters', spec: minimalSpec, objectName: 'a'.repeat(63) }],
    invalid: [{ name: '64 characters', spec: minimalSpec, objectName: 'a'.repeat(64) }],
  },
};

const LOCATIONS = ruleLocations(authConfigSchema);

function locationOf(rule: ValidationRule) {
  const location = LOCATIONS.find((candidate) => candidate.rule === rule);
  if (!location) throw new Error(`rule not in the CRD: ${rule.rule}`);
  return location;
}

/** The values a rule location reaches in an object, e.g. each entry for `spec.env[]`. */
function valuesAt(value: unknown, path: string): unknown[] {
  if (path === '') return [value];
  let values = [value];
  for (const segment of path.split('.')) {
    const list = segment.endsWith('[]');
    const key = list ? segment.slice(0, -2) : segment;
    values = values.flatMap((current) => {
      const next = isJsonObject(current) ? current[key] : undefined;
      if (next === undefined) return [];
      return list && Array.isArray(next) ? next : [next];
    });
  }
  return values;
}

/** Whether one rule holds for an AuthConfig with this spec, after the API server's defaulting. */
function holds(id: CelRuleId, vector: Vector): boolean {
  const rule = CEL_RULES[id];
  const location = locationOf(rule);
  const object = applyDefaults(authConfigSchema, authConfig(vector.spec, vector.objectName));
  return valuesAt(object, location.path).every((value) =>
    evaluateRule(location.schema, rule.rule, value, location.isRoot),
  );
}

describe('the CRD CEL rules, evaluated', () => {
  it('rejects AUTH_MODE=local with OIDC enabled (a boot refusal of the gateway)', () => {
    const object = authConfig(specWith({ authMode: 'local', oidc: { enabled: true } }));
    expect(admit(authConfigSchema, object)).toEqual({
      ok: false,
      problems: [{ path: 'spec.oidc.enabled', message: CEL_RULES.localWithOidcEnabled.message }],
    });
  });

  it('rejects LDAP with AUTH_MODE=oidc (a boot refusal of the gateway)', () => {
    const object = authConfig(specWith({ authMode: 'oidc', oidc: oidcSettings, ldap: ldapSettings }));
    expect(admit(authConfigSchema, object)).toEqual({
      ok: false,
      problems: [{ path: 'spec.ldap.enabled', message: CEL_RULES.ldapWithOidcMode.message }],
    });
  });

  for (const [id, { valid, invalid }] of Object.entries(VECTORS) as Array<
    [CelRuleId, (typeof VECTORS)[CelRuleId]]
  >) {
    describe(id, () => {
      it.each(valid)('holds: $name', (vector) => expect(holds(id, vector)).toBe(true));
      it.each(invalid)('fails: $name', (vector) => expect(holds(id, vector)).toBe(false));

      it.each(valid)('a valid vector is admitted whole and passes validateSpec: $name', (vector) => {
        expect(admit(authConfigSchema, authConfig(vector.spec, vector.objectName))).toMatchObject({
          ok: true,
        });
        expect(validateSpec(vector.spec)).toMatchObject({ ok: true });
      });

      it.each(invalid)('an invalid vector is refused with the rule message: $name', (vector) => {
        const admission = admit(authConfigSchema, authConfig(vector.spec, vector.objectName));
        expect(admission.ok).toBe(false);
        if (!admission.ok)
          expect(admission.problems.map((problem) => problem.message)).toContain(CEL_RULES[id].message);
        // What gets past the API server is refused by validateSpec too (the name is not part of the spec).
        if (id !== 'nameLength') expect(validateSpec(vector.spec).ok).toBe(false);
      });
    });
  }
});

describe('the CRD CEL rules, as the API server compiles them', () => {
  it('every rule type-checks against the schema at its location and returns bool', () => {
    const errors = LOCATIONS.map((location) => ({ path: location.path, error: typeCheck(location) })).filter(
      ({ error }) => error !== undefined,
    );
    expect(errors).toEqual([]);
  });

  it('the type check is real: a misspelt field or a non-bool rule is refused', () => {
    const spec = LOCATIONS.find((location) => location.path === 'spec');
    if (!spec) throw new Error('no spec rules');
    expect(typeCheck({ ...spec, rule: { rule: 'self.oidc.enabeld', message: 'x' } })).toMatch(/enabeld/);
    expect(typeCheck({ ...spec, rule: { rule: 'self.appEnv', message: 'x' } })).toMatch(
      /must evaluate to a bool/,
    );
    expect(typeCheck({ ...spec, rule: { rule: 'self.appEnv > 3', message: 'x' } })).toBeDefined();
  });

  it('every rule in the source is in the CRD, and the CRD YAML carries exactly that text', async () => {
    const used = new Set(LOCATIONS.map((location) => location.rule));
    expect(Object.values(CEL_RULES).filter((rule) => !used.has(rule))).toEqual([]);
    const yaml = parse(await readFile(new URL('../../deploy/crd.yaml', import.meta.url), 'utf8')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: JsonSchema } }> };
    };
    const [version] = yaml.spec.versions;
    if (!version) throw new Error('no version in crd.yaml');
    const fromYaml = ruleLocations(version.schema.openAPIV3Schema).map(({ path, rule }) => ({
      path,
      ...rule,
    }));
    expect(fromYaml).toEqual(LOCATIONS.map(({ path, rule }) => ({ path, ...rule })));
  });

  it("every default holds under its own node's rules as written, without the defaults nested in it", () => {
    // The API server checks this when the CRD is created, and refuses the CRD otherwise.
    const broken = LOCATIONS.filter(({ schema }) => schema.default !== undefined).flatMap((location) => {
      try {
        const holds = evaluateRule(
          location.schema,
          location.rule.rule,
          location.schema.default,
          location.isRoot,
        );
        return holds ? [] : [{ path: location.path, message: location.rule.message }];
      } catch (error) {
        return [{ path: location.path, message: (error as Error).message }];
      }
    });
    expect(broken).toEqual([]);
  });

  it('messages have no line breaks (the API server refuses them)', () => {
    for (const rule of Object.values(CEL_RULES)) expect(rule.message).not.toMatch(/\n/);
  });
});
