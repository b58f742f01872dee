import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkVariable, GATEWAY_VARIABLES, isSecretVariable } from '../api/gateway-variables.ts';
import { arbitrarySpec } from '../../../test/support/operator/arbitraries.ts';
import {
  gateSecrets,
  ldapSettings,
  minimalSpec,
  secretRef,
} from '../../../test/support/operator/fixtures.ts';
import type { AuthConfigSpec, AuthConfigSpecInput } from '../api/types.generated.ts';
import { validateSpec } from '../api/validate-spec.ts';
import { renderEnv } from './env.ts';

function valid(input: AuthConfigSpecInput): AuthConfigSpec {
  const verdict = validateSpec(input);
  if (!verdict.ok) throw new Error(JSON.stringify(verdict.problems));
  return verdict.spec;
}

const fullSpec = valid({
  target: { name: 'gatehouse' },
  appEnv: 'production',
  appBaseUrl: 'https://app.example.com',
  authMode: 'local+oidc',
  oidc: {
    kind: 'keycloak',
    issuer: 'https://login.example.com/realms/gatehouse',
    clientId: 'gatehouse',
    clientSecretRef: { name: 'gatehouse-oidc', key: 'client-secret' },
  },
  bootstrapAdminEmail: 'admin@example.com',
  breakGlass: false,
  ldap: {
    ...ldapSettings,
    mode: 'only',
    groupBase: 'ou=groups,dc=example,dc=com',
    groupRoles: { ops: 'users:admin', '10': 'agent' },
  },
  webauthn: { rpId: 'example.com', origins: ['https://app.example.com', 'https://admin.example.com'] },
  plugins: ['auth', 'kyc'],
  secretEnv: [...gateSecrets, secretRef('DATABASE_URL')],
  env: [{ name: 'LOG_LEVEL', value: 'debug' }],
  apiAuth: { mode: 'enforce', rollout: { prometheus: { url: 'http://prometheus:9090' } } },
});

describe('renderEnv', () => {
  it('renders every setting under the names of the documents, sorted, without secrets', () => {
    const { env, secretEnv } = renderEnv(fullSpec, 'warn');
    expect(env).toEqual({
      API_AUTH_MODE: 'warn',
      APP_BASE_URL: 'https://app.example.com',
      APP_ENV: 'production',
      AUTH_BREAK_GLASS: 'false',
      AUTH_MODE: 'local+oidc',
      BOOTSTRAP_ADMIN_EMAIL: 'admin@example.com',
      GATEWAY_PLUGINS: 'auth,kyc',
      LDAP_BIND_DN: 'cn=gatehouse,ou=services,dc=example,dc=com',
      LDAP_ENABLED: 'true',
      LDAP_GROUP_BASE: 'ou=groups,dc=example,dc=com',
      LDAP_GROUP_ROLES: '{"10":"agent","ops":"users:admin"}',
      LDAP_MODE: 'only',
      LDAP_START_TLS: 'false',
      LDAP_TIMEOUT_MS: '5000',
      LDAP_URL: 'ldaps://ldap.example.com',
      LDAP_USER_BASE: 'ou=people,dc=example,dc=com',
      LDAP_USER_FILTER: '(mail={email})',
      LOG_LEVEL: 'debug',
      OIDC_CLIENT_ID: 'gatehouse',
      OIDC_ISSUER: 'https://login.example.com/realms/gatehouse',
      OIDC_KIND: 'keycloak',
      WEBAUTHN_ORIGINS: 'https://app.example.com,https://admin.example.com',
      WEBAUTHN_RP_ID: 'example.com',
    });
    expect(Object.keys(env)).toEqual(Object.keys(env).sort());
    expect(secretEnv).toEqual([
      { name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 'gatehouse-secrets', key: 'auth-secret' } } },
      {
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'gatehouse-secrets', key: 'database-url' } },
      },
      {
        name: 'INTERNAL_API_SECRET',
        valueFrom: { secretKeyRef: { name: 'gatehouse-secrets', key: 'internal-api-secret' } },
      },
      {
        name: 'LDAP_BIND_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'gatehouse-ldap', key: 'password' } },
      },
      {
        name: 'OIDC_CLIENT_SECRET',
        valueFrom: { secretKeyRef: { name: 'gatehouse-oidc', key: 'client-secret' } },
      },
    ]);
  });

  it('writes the effective API_AUTH_MODE, not the one the SRE asked for', () => {
    expect(renderEnv(fullSpec, 'disabled').env.API_AUTH_MODE).toBe('disabled');
    expect(renderEnv(fullSpec, 'enforce').env.API_AUTH_MODE).toBe('enforce');
  });

  it('renders the gateway defaults explicitly, the deprecated OIDC_ENABLED only when true', () => {
    const { env } = renderEnv(valid(minimalSpec), 'disabled');
    expect(env).toEqual({
      API_AUTH_MODE: 'disabled',
      APP_ENV: 'production',
      AUTH_BREAK_GLASS: 'true',
      AUTH_MODE: 'local',
      GATEWAY_PLUGINS: 'auth,kyc,messaging,realtime',
      LDAP_ENABLED: 'false',
      LDAP_START_TLS: 'false',
      LDAP_TIMEOUT_MS: '5000',
      LDAP_USER_FILTER: '(mail={email})',
      OIDC_KIND: 'generic',
    });
    const development = valid({
      target: { name: 'g' },
      appEnv: 'development',
      oidc: { enabled: true, issuer: 'https://idp.example.com', clientId: 'c' },
    });
    expect(renderEnv(development, 'disabled').env.OIDC_ENABLED).toBe('true');
  });

  it('is what the gateway parses back: every value passes the gateway schema of its variable', () => {
    const { env } = renderEnv(fullSpec, 'enforce');
    for (const [name, value] of Object.entries(env)) {
      expect(GATEWAY_VARIABLES.has(name), name).toBe(true);
      expect(checkVariable(name, value), name).toEqual([]);
    }
  });

  it('never puts a secret in the plain settings, whatever the spec holds (property)', () => {
    fc.assert(
      fc.property(
        arbitrarySpec,
        fc.constantFrom('disabled' as const, 'warn' as const, 'enforce' as const),
        (spec, mode) => {
          const rendered = renderEnv(spec, mode);
          const secretNames = rendered.secretEnv.map((secret) => secret.name);
          for (const name of Object.keys(rendered.env)) {
            expect(isSecretVariable(name), name).toBe(false);
            expect(secretNames).not.toContain(name);
          }
          expect(rendered.env.API_AUTH_MODE).toBe(mode);
          expect(Object.keys(rendered.env)).toEqual(Object.keys(rendered.env).sort());
        },
      ),
    );
  });

  it('is deterministic: the same spec renders the same, in the same order (property)', () => {
    fc.assert(
      fc.property(arbitrarySpec, (spec) => {
        const a = renderEnv(spec, 'warn');
        const b = renderEnv(structuredClone(spec), 'warn');
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
      }),
    );
  });
});
