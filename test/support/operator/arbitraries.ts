import fc from 'fast-check';
import { applyDefaults } from '../../../operator/src/api/defaults.ts';
import { GATEWAY_VARIABLES } from '../../../operator/src/api/gateway-variables.ts';
import { specSchema } from '../../../operator/src/api/spec-schema.ts';
import type { AuthConfigSpec, SecretKeyRef } from '../../../operator/src/api/types.generated.ts';

/**
 * Test support (fast-check): defaulted specs with arbitrary env and secretEnv entries, named after the
 * gateway's variables (secrets included) or not, and arbitrary secret fields. Not necessarily valid: the
 * renderer's guarantees must hold even for a spec validateSpec refuses.
 */
const names = [...GATEWAY_VARIABLES.keys()];
const name = fc.oneof(fc.constantFrom(...names), fc.stringMatching(/^[A-Z][A-Z0-9_]{0,15}$/));
/**
 * Secret keys carry a prefix that plain values never have, so "no secret key among the ConfigMap's values" can
 * only fail when the renderer copies a key, never because a random plain value happens to spell one ("i").
 */
const SECRET_KEY_PREFIX = 'secret-key-';
const ref: fc.Arbitrary<SecretKeyRef> = fc.record({
  name: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
  key: fc.stringMatching(/^[a-z0-9-]{1,10}$/).map((key) => `${SECRET_KEY_PREFIX}${key}`),
});
const plainValue = fc.string({ maxLength: 20 }).filter((value) => !value.startsWith(SECRET_KEY_PREFIX));

export const arbitrarySpec: fc.Arbitrary<AuthConfigSpec> = fc
  .record({
    env: fc.uniqueArray(fc.record({ name, value: plainValue }), {
      selector: (entry) => entry.name,
      maxLength: 10,
    }),
    secretEnv: fc.uniqueArray(fc.record({ name, secretKeyRef: ref }), {
      selector: (entry) => entry.name,
      maxLength: 6,
    }),
    oidc: fc.record({ clientSecretRef: ref, enabled: fc.boolean() }, { requiredKeys: [] }),
    ldap: fc.record({ bindPasswordRef: ref, enabled: fc.boolean() }, { requiredKeys: [] }),
    authMode: fc.constantFrom('local' as const, 'oidc' as const, 'local+oidc' as const),
  })
  .map((parts) => applyDefaults(specSchema, { target: { name: 'gatehouse' }, ...parts }) as AuthConfigSpec);
