import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretVariable } from '../api/gateway-variables.ts';
import { LABELS, MANAGED_BY } from '../api/names.ts';
import { arbitrarySpec } from '../../../test/support/operator/arbitraries.ts';
import { configMapFor, configMapName, envHash, HASH_LENGTH } from './config-map.ts';
import { renderEnv } from './env.ts';

const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/);
const envMap = fc.dictionary(envName, fc.string({ maxLength: 40 }), { maxKeys: 12 });

/** The same entries, inserted in another order. */
function reordered(env: Record<string, string>, seed: number): Record<string, string> {
  const keys = Object.keys(env);
  const shuffled = keys
    .map((key, index) => ({ key, rank: (index * 7919 + seed) % (keys.length + 1) }))
    .sort((a, b) => a.rank - b.rank);
  return Object.fromEntries(shuffled.map(({ key }) => [key, env[key] ?? '']));
}

describe('configMapFor', () => {
  it('is an immutable ConfigMap named <authconfig>-env-<hash>, labelled and owned', () => {
    const map = configMapFor('gateway', { B: '2', A: '1' }, { namespace: 'shop', ownerUid: 'uid-1' });
    expect(map).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `gateway-env-${envHash({ A: '1', B: '2' })}`,
        namespace: 'shop',
        labels: {
          [LABELS.managedBy]: MANAGED_BY,
          [LABELS.authConfig]: 'gateway',
          [LABELS.configHash]: envHash({ A: '1', B: '2' }),
        },
        ownerReferences: [
          {
            apiVersion: 'gatehouse.dev/v1alpha1',
            kind: 'AuthConfig',
            name: 'gateway',
            uid: 'uid-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      immutable: true,
      data: { A: '1', B: '2' },
    });
    expect(Object.keys(map.data)).toEqual(['A', 'B']);
    expect(configMapFor('gateway', {}).metadata).not.toHaveProperty('ownerReferences');
  });

  it('hashes stably: a pinned vector (a change here would roll every gateway pod)', () => {
    expect(envHash({ API_AUTH_MODE: 'warn', AUTH_MODE: 'local' })).toBe('d7cfbbfbeb');
    expect(envHash({})).toHaveLength(HASH_LENGTH);
  });

  it('the same content gives the same name whatever the key order (property)', () => {
    fc.assert(
      fc.property(envMap, fc.nat(), (env, seed) => {
        expect(configMapFor('gw', reordered(env, seed)).metadata.name).toBe(
          configMapFor('gw', env).metadata.name,
        );
      }),
    );
  });

  it('any change of a name or a value gives another name (property)', () => {
    const change = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), name: envName, value: fc.string({ maxLength: 40 }) }),
      fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
      fc.record({ kind: fc.constant('rename' as const), index: fc.nat(), name: envName }),
    );
    fc.assert(
      fc.property(envMap, change, (env, edit) => {
        const next = { ...env };
        const keys = Object.keys(env);
        if (edit.kind === 'set') next[edit.name] = edit.value;
        else if (keys.length > 0) {
          const key = keys[edit.index % keys.length] ?? '';
          const value = next[key] ?? '';
          delete next[key];
          if (edit.kind === 'rename') next[edit.name] = value;
        }
        const same =
          JSON.stringify(Object.entries(next).sort()) === JSON.stringify(Object.entries(env).sort());
        fc.pre(!same);
        expect(envHash(next)).not.toBe(envHash(env));
      }),
      { numRuns: 500 },
    );
  });

  it('separators cannot make two contents collide', () => {
    expect(envHash({ A: 'x', B: 'y' })).not.toBe(envHash({ A: 'x","B":"y' }));
    expect(envHash({ A: '1,B=2' })).not.toBe(envHash({ A: '1', B: '2' }));
  });

  it('shortens a long prefix to keep a valid name', () => {
    const name = configMapName('a'.repeat(300), '0123456789');
    expect(name).toHaveLength(253);
    expect(name.endsWith('-env-0123456789')).toBe(true);
    expect(configMapName('a-'.repeat(200), '0123456789')).toMatch(
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?-env-0123456789$/,
    );
  });

  it('holds no secret: the data never carries a secret variable or a secretEnv name (property)', () => {
    fc.assert(
      fc.property(
        arbitrarySpec,
        fc.constantFrom('disabled' as const, 'warn' as const, 'enforce' as const),
        (spec, mode) => {
          const rendered = renderEnv(spec, mode);
          const map = configMapFor('gateway', rendered.env);
          const secretNames = rendered.secretEnv.map((entry) => entry.name);
          for (const name of Object.keys(map.data)) {
            expect(isSecretVariable(name), name).toBe(false);
            expect(secretNames).not.toContain(name);
          }
          for (const setting of [spec.oidc.clientSecretRef, spec.ldap.bindPasswordRef]) {
            if (setting) expect(Object.values(map.data)).not.toContain(setting.key);
          }
        },
      ),
    );
  });
});
