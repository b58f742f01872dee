import { describe, expect, it } from 'vitest';
import {
  gateSecrets,
  ldapSettings,
  minimalSpec,
  oidcSettings,
  secretRef,
  specWith,
} from '../../../test/support/operator/fixtures.ts';
import { validateSpec, type SpecProblem } from './validate-spec.ts';

function problems(input: unknown): SpecProblem[] {
  const verdict = validateSpec(input);
  return verdict.ok ? [] : verdict.problems;
}

describe("validateSpec: the gateway's boot refusals", () => {
  it('refuses AUTH_MODE=local with OIDC enabled, naming the field and the variable', () => {
    expect(problems(specWith({ authMode: 'local', oidc: { enabled: true } }))).toEqual([
      {
        field: 'spec.oidc.enabled',
        variable: 'OIDC_ENABLED',
        message: 'is true but AUTH_MODE=local: set AUTH_MODE=local+oidc, or drop the deprecated OIDC_ENABLED',
      },
    ]);
  });

  it('refuses LDAP with AUTH_MODE=oidc', () => {
    expect(problems(specWith({ authMode: 'oidc', oidc: oidcSettings, ldap: ldapSettings }))).toEqual([
      {
        field: 'spec.ldap.enabled',
        variable: 'LDAP_ENABLED',
        message: 'cannot be true with AUTH_MODE=oidc (directory passwords are password logins)',
      },
    ]);
  });

  it('accepts a valid spec and returns it defaulted and typed', () => {
    const verdict = validateSpec(minimalSpec);
    expect(verdict.ok).toBe(true);
    if (!verdict.ok) return;
    expect(verdict.spec).toMatchObject({
      appEnv: 'production',
      breakGlass: true,
      plugins: ['auth', 'kyc', 'messaging', 'realtime'],
      oidc: { enabled: false, kind: 'generic' },
      ldap: { enabled: false, userFilter: '(mail={email})', timeoutMs: 5000 },
      apiAuth: {
        mode: 'disabled',
        rollout: { minWarnSoak: '24h', maxWarnSoak: '72h', minEnforceSoak: '168h' },
      },
    });
  });

  it('does not change its input', () => {
    const input = structuredClone(minimalSpec);
    validateSpec(input);
    expect(input).toEqual(minimalSpec);
  });

  it('requires AUTH_MODE and AUTH_SECRET outside development, only when the auth plugin runs', () => {
    expect(problems({ target: { name: 'gatehouse' } })).toEqual([
      {
        field: 'spec.authMode',
        variable: 'AUTH_MODE',
        message: 'required outside development (local, oidc or local+oidc)',
      },
      {
        field: 'spec.secretEnv',
        variable: 'AUTH_SECRET',
        message: 'required to sign users in (session cookies are Auth.js tokens made with it)',
      },
    ]);
    expect(problems({ target: { name: 'gatehouse' }, appEnv: 'development' })).toEqual([]);
    expect(problems({ target: { name: 'gatehouse' }, plugins: ['kyc'] })).toEqual([]);
  });

  it('requires the OIDC issuer and client id when the mode includes oidc', () => {
    expect(
      problems(specWith({ authMode: 'local+oidc' })).map(({ field, variable }) => [field, variable]),
    ).toEqual([
      ['spec.oidc.issuer', 'OIDC_ISSUER'],
      ['spec.oidc.clientId', 'OIDC_CLIENT_ID'],
    ]);
  });

  it('requires the LDAP connection settings when LDAP is on', () => {
    expect(problems(specWith({ ldap: { enabled: true } })).map(({ field }) => field)).toEqual([
      'spec.ldap.url',
      'spec.ldap.userBase',
      'spec.ldap.bindDn',
    ]);
  });

  it('checks the passkey relying party against the origin derived from appBaseUrl (no CEL rule can)', () => {
    expect(
      problems(specWith({ appBaseUrl: 'https://app.example.com', webauthn: { rpId: 'example.org' } })),
    ).toEqual([
      {
        field: 'spec.webauthn.rpId',
        variable: 'WEBAUTHN_RP_ID',
        message: '"example.org" is not the domain of the origin https://app.example.com',
      },
    ]);
  });
});

describe('validateSpec: the API gate (002, gateway/src/gate/config.ts)', () => {
  it('requires both gate secrets for warn and enforce', () => {
    const spec = specWith({
      apiAuth: { mode: 'enforce', rollout: { prometheus: { url: 'http://prometheus:9090' } } },
    });
    expect(problems(spec)).toEqual([
      {
        field: 'spec.secretEnv',
        variable: 'INTERNAL_API_SECRET',
        message: 'required when API_AUTH_MODE is enforce',
      },
    ]);
    expect(problems({ ...spec, secretEnv: gateSecrets })).toEqual([]);
  });

  it('requires a Prometheus URL for automatic promotion, not for manual promotion', () => {
    const spec = specWith({ secretEnv: gateSecrets, apiAuth: { mode: 'warn' } });
    expect(problems(spec)).toEqual([
      {
        field: 'spec.apiAuth.rollout.prometheus.url',
        message: 'is required for automatic promotion (or set automaticPromotion: false)',
      },
    ]);
    expect(problems({ ...spec, apiAuth: { mode: 'warn', rollout: { automaticPromotion: false } } })).toEqual(
      [],
    );
  });

  it('checks the rollout policy', () => {
    expect(
      problems(
        specWith({
          apiAuth: { rollout: { minWarnSoak: '80h', analysisInterval: '5s', analysisWindow: '1s' } },
        }),
      ).map(({ field }) => field),
    ).toEqual([
      'spec.apiAuth.rollout.minWarnSoak',
      'spec.apiAuth.rollout.analysisInterval',
      'spec.apiAuth.rollout.analysisWindow',
    ]);
  });
});

describe('validateSpec: values as the gateway parses them at boot', () => {
  it('runs the gateway zod schema of each variable, with its message', () => {
    expect(problems(specWith({ bootstrapAdminEmail: 'admin@localhost' }))).toEqual([
      {
        field: 'spec.bootstrapAdminEmail',
        variable: 'BOOTSTRAP_ADMIN_EMAIL',
        message: 'must be an email address',
      },
    ]);
    expect(problems(specWith({ env: [{ name: 'LOG_LEVEL', value: 'verbose' }] }))).toEqual([
      {
        field: 'spec.env[0]',
        variable: 'LOG_LEVEL',
        message: 'must be one of: fatal, error, warn, info, debug, trace, silent',
      },
    ]);
    expect(problems(specWith({ env: [{ name: 'PORT', value: 'abc' }] }))).toEqual([
      { field: 'spec.env[0]', variable: 'PORT', message: 'must be a port number' },
    ]);
  });

  it('knows the variables of every built-in plugin', () => {
    expect(
      problems(
        specWith({
          env: [
            { name: 'KYC_RATE_LIMIT', value: '100' },
            { name: 'MESSAGING_API_BASE_URL', value: 'https://graph.example.com/v21.0' },
            {
              name: 'GATEWAY_UPSTREAMS',
              value: '[{"prefix":"/api/v1/legacy","target":"http://legacy:8080"}]',
            },
          ],
          secretEnv: [secretRef('AUTH_SECRET'), secretRef('DATABASE_URL'), secretRef('WEBHOOK_VERIFY_TOKEN')],
        }),
      ),
    ).toEqual([]);
  });
});

describe('validateSpec: env and secretEnv names', () => {
  it('refuses a name the gateway does not read (a typo would be silently ignored by the gateway)', () => {
    expect(problems(specWith({ env: [{ name: 'LOG_LEVLE', value: 'debug' }] }))).toEqual([
      {
        field: 'spec.env[0].name',
        variable: 'LOG_LEVLE',
        message: 'is not a setting of the gateway or of a built-in plugin',
      },
    ]);
    expect(
      problems(specWith({ secretEnv: [secretRef('AUTH_SECRET'), secretRef('AUTH_SECRETS')] })),
    ).toHaveLength(1);
  });

  it('keeps secrets out of env, and names the spec sets out of both lists', () => {
    const found = problems(
      specWith({
        env: [
          { name: 'DATABASE_URL', value: 'postgres://user:pw@db/gatehouse' },
          { name: 'API_AUTH_MODE', value: 'enforce' },
          { name: 'AUTH_SECRET_FILE', value: '/run/secrets/auth' },
        ],
        secretEnv: [secretRef('AUTH_SECRET'), secretRef('LDAP_BIND_PASSWORD')],
      }),
    );
    expect(found.map(({ field, message }) => [field, message])).toEqual([
      ['spec.env[0].name', 'is a secret: reference it from a Secret in secretEnv'],
      ['spec.env[1].name', 'is set by spec.apiAuth.mode; remove it from env'],
      ['spec.env[2].name', 'NAME_FILE variables are not supported; reference the Secret in secretEnv'],
      ['spec.secretEnv[1].name', 'is set by spec.ldap.bindPasswordRef; remove it from secretEnv'],
    ]);
    // The secret value is never echoed.
    expect(JSON.stringify(found)).not.toContain('pw@db');
  });

  it('refuses a plugin without its dependencies, worded as the gateway does', () => {
    expect(problems(specWith({ plugins: ['auth', 'realtime'] }))).toEqual([
      {
        field: 'spec.plugins',
        variable: 'GATEWAY_PLUGINS',
        message: 'plugin realtime depends on plugin "messaging", which is not enabled (add it to plugins)',
      },
    ]);
  });
});

describe('validateSpec: structure, for what got past the API server', () => {
  it.each([
    ['null', null, 'spec', 'must be an object (got null)'],
    ['a string', 'oidc', 'spec', 'must be an object (got string "oidc")'],
    ['no target', {}, 'spec.target', 'required'],
    ['an unknown field', { ...minimalSpec, oidcIssuer: 'https://x' }, 'spec.oidcIssuer', 'unknown field'],
    [
      'a wrong type',
      { ...minimalSpec, breakGlass: 'yes' },
      'spec.breakGlass',
      'must be true or false (got string "yes")',
    ],
    [
      'an unknown mode',
      { ...minimalSpec, authMode: 'saml' },
      'spec.authMode',
      'must be one of: local, oidc, local+oidc (got "saml")',
    ],
    [
      'an unknown plugin',
      { ...minimalSpec, plugins: ['auth', 'billing'] },
      'spec.plugins[1]',
      expect.stringContaining('must be one of') as unknown,
    ],
    [
      'a bad duration',
      { ...minimalSpec, apiAuth: { rollout: { minWarnSoak: '1d' } } },
      'spec.apiAuth.rollout.minWarnSoak',
      expect.stringContaining('must match') as unknown,
    ],
  ])('reports %s without throwing', (_name, input, field, message) => {
    expect(problems(input)).toContainEqual({ field, message });
  });

  it('reports every problem at once', () => {
    const found = problems(
      specWith({
        oidc: { enabled: true },
        bootstrapAdminEmail: 'admin@localhost',
        plugins: ['auth', 'realtime'],
        env: [{ name: 'LOG_LEVLE', value: 'x' }],
      }),
    );
    expect(found.map(({ field }) => field).sort()).toEqual([
      'spec.bootstrapAdminEmail',
      'spec.env[0].name',
      'spec.oidc.enabled',
      'spec.plugins',
    ]);
  });
});
