import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { API_VERSION, KIND } from '../../../operator/src/api/names.ts';
import type { AuthConfigInput } from '../../../operator/src/api/resource.ts';
import type { AuthConfigSpecInput, SecretEnvVar } from '../../../operator/src/api/types.generated.ts';

/** Test fixtures: the smallest valid production spec, and helpers to vary it. */

/** The Secret the fixtures' `secretRef`s name (`createFixtureSecret` gives it a value for every key they use). */
export const FIXTURE_SECRET = 'gatehouse-secrets';

export const secretRef = (name: string, key = name.toLowerCase().replaceAll('_', '-')): SecretEnvVar => ({
  name,
  secretKeyRef: { name: FIXTURE_SECRET, key },
});

/** Valid outside development: local passwords, the gate disabled, AUTH_SECRET from a Secret. */
export const minimalSpec: AuthConfigSpecInput = {
  target: { name: 'gatehouse' },
  authMode: 'local',
  secretEnv: [secretRef('AUTH_SECRET')],
};

export const oidcSettings = {
  issuer: 'https://login.example.com/realms/gatehouse',
  clientId: 'gatehouse',
};

export const ldapSettings = {
  enabled: true,
  url: 'ldaps://ldap.example.com',
  bindDn: 'cn=gatehouse,ou=services,dc=example,dc=com',
  bindPasswordRef: { name: 'gatehouse-ldap', key: 'password' },
  userBase: 'ou=people,dc=example,dc=com',
};

export const gateSecrets = [secretRef('AUTH_SECRET'), secretRef('INTERNAL_API_SECRET')];

/** `minimalSpec` with some fields replaced (shallowly). */
export function specWith(changes: Partial<AuthConfigSpecInput>): AuthConfigSpecInput {
  return { ...minimalSpec, ...changes };
}

/** A whole AuthConfig object around a spec. */
export function authConfig(spec: AuthConfigSpecInput, name = 'gateway'): AuthConfigInput {
  return { apiVersion: API_VERSION, kind: KIND, metadata: { name, namespace: 'gatehouse' }, spec };
}

/**
 * Creates `FIXTURE_SECRET` in a namespace, as an admin would before applying an AuthConfig that references it
 * (the operator digests the referenced Secrets' data into the pod template and reports missing ones).
 */
export async function createFixtureSecret(kc: KubeConfig, namespace: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespacedSecret({
    namespace,
    body: {
      metadata: { name: FIXTURE_SECRET },
      stringData: {
        'auth-secret': 'a'.repeat(32),
        'internal-api-secret': 'b'.repeat(32),
        'oidc-client-secret': 'c'.repeat(32),
      },
    },
  });
}
