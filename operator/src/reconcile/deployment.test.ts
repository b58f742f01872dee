import { describe, expect, it } from 'vitest';
import { ANNOTATIONS, FIELD_MANAGER } from '../api/names.ts';
import { overriddenVariables, planDeployment, podContainers, type DeploymentTarget } from './deployment.ts';
import type { JsonObject } from '../api/json.ts';

const target: DeploymentTarget = {
  authConfigName: 'gw',
  configMapName: 'gw-env-bbbbbbbbbb',
  hash: 'bbbbbbbbbb',
  secretsHash: 'cccccccccccccccc',
  secretEnv: [{ name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'auth' } } }],
  plainNames: ['API_AUTH_MODE', 'AUTH_MODE'],
};

const SECRET_ENTRY = { name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'auth' } } };

function live(container: JsonObject, extra: JsonObject = {}, metadata: JsonObject = {}): JsonObject {
  const { annotations, ...spec } = extra;
  return {
    metadata: { name: 'gatehouse', namespace: 'ns', ...metadata },
    spec: {
      template: {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: { containers: [container, { name: 'sidecar', image: 'x' }] },
      },
      ...spec,
    },
  };
}

/** A live Deployment that already carries everything the operator applies for `target`. */
function applied(managedFields?: JsonObject[]): JsonObject {
  return live(
    {
      name: 'gateway',
      image: 'gatehouse:1',
      envFrom: [{ configMapRef: { name: 'gw-env-bbbbbbbbbb' } }],
      env: [{ name: 'NODE_OPTIONS', value: '--x' }, SECRET_ENTRY],
    },
    {
      strategy: { rollingUpdate: { maxSurge: '100%' } },
      annotations: { [ANNOTATIONS.configHash]: 'bbbbbbbbbb', [ANNOTATIONS.secretsHash]: 'cccccccccccccccc' },
    },
    managedFields ? { managedFields } : {},
  );
}

/** The operator's Apply entry owning the gateway container's fields given (besides its own). */
function operatorEntry(extraGatewayFields: JsonObject = {}): JsonObject {
  return {
    manager: FIELD_MANAGER,
    operation: 'Apply',
    apiVersion: 'apps/v1',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:spec': {
        'f:strategy': { 'f:rollingUpdate': { 'f:maxSurge': {} } },
        'f:template': {
          'f:metadata': {
            'f:annotations': { [`f:${ANNOTATIONS.configHash}`]: {}, [`f:${ANNOTATIONS.secretsHash}`]: {} },
          },
          'f:spec': {
            'f:containers': {
              'k:{"name":"gateway"}': {
                '.': {},
                'f:name': {},
                'f:envFrom': {},
                'f:env': {
                  'k:{"name":"AUTH_SECRET"}': {
                    '.': {},
                    'f:name': {},
                    'f:valueFrom': { 'f:secretKeyRef': { 'f:key': {}, 'f:name': {} } },
                  },
                },
                ...extraGatewayFields,
              },
            },
          },
        },
      },
    },
  };
}

describe('planDeployment', () => {
  it('applies only the operator fields: the gateway container by name with envFrom and secret env, the annotations, maxSurge', () => {
    const plan = planDeployment(
      live({
        name: 'gateway',
        image: 'gatehouse:1',
        envFrom: [{ configMapRef: { name: 'gw-env-aaaaaaaaaa' } }, { secretRef: { name: 'extra' } }],
        env: [
          { name: 'NODE_OPTIONS', value: '--x' },
          { name: 'INTERNAL_API_SECRET', valueFrom: { secretKeyRef: { name: 'old', key: 'k' } } },
        ],
      }),
      target,
    );
    expect(plan).toEqual({
      ok: true,
      upToDate: false,
      applyConfiguration: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'gatehouse', namespace: 'ns' },
        spec: {
          strategy: { rollingUpdate: { maxSurge: '100%' } },
          template: {
            metadata: {
              annotations: {
                [ANNOTATIONS.configHash]: 'bbbbbbbbbb',
                [ANNOTATIONS.secretsHash]: 'cccccccccccccccc',
              },
            },
            spec: {
              containers: [
                {
                  name: 'gateway',
                  // The other sources first, the env ConfigMap last so its settings win; the old one dropped.
                  envFrom: [
                    { secretRef: { name: 'extra' } },
                    { configMapRef: { name: 'gw-env-bbbbbbbbbb' } },
                  ],
                  env: [SECRET_ENTRY],
                },
              ],
            },
          },
        },
      },
    });
  });

  it('is up to date when the live object carries the fields and the operator owns nothing else', () => {
    expect(planDeployment(applied(), target)).toMatchObject({ upToDate: true });
    expect(planDeployment(applied([operatorEntry()]), target)).toMatchObject({ upToDate: true });
    // An operator that once applied whole containers co-owns the image: one more apply gives it back.
    expect(planDeployment(applied([operatorEntry({ 'f:image': {} })]), target)).toMatchObject({
      upToDate: false,
    });
    // So is a secret entry it no longer applies.
    const stale = operatorEntry({
      'f:env': { 'k:{"name":"OLD_SECRET"}': { '.': {}, 'f:name': {}, 'f:valueFrom': {} } },
    });
    expect(planDeployment(applied([stale]), target)).toMatchObject({ upToDate: false });
    // Another manager's fields are not the operator's concern.
    expect(
      planDeployment(applied([{ ...operatorEntry({ 'f:image': {} }), manager: 'helm' }]), target),
    ).toMatchObject({
      upToDate: true,
    });
  });

  it('picks the named container, leaves the strategy alone under Recreate and reports a missing container', () => {
    const named = planDeployment(live({ name: 'gateway' }), { ...target, container: 'sidecar' });
    expect(named.ok && JSON.stringify(named.applyConfiguration)).toContain('"name":"sidecar"');
    const plan = planDeployment(live({ name: 'gateway' }, { strategy: { type: 'Recreate' } }), target);
    expect(plan.ok && (plan.applyConfiguration.spec as JsonObject).strategy).toBeUndefined();
    expect(planDeployment(live({ name: 'gateway' }), { ...target, container: 'nope' })).toMatchObject({
      ok: false,
      reason: 'ContainerNotFound',
    });
  });
});

describe('overriddenVariables', () => {
  it('names the env entries of the gateway container that override a variable of the ConfigMap', () => {
    const deployment = live({
      name: 'gateway',
      env: [
        { name: 'NODE_OPTIONS', value: '--x' },
        { name: 'API_AUTH_MODE', value: 'enforce' },
        { name: 'AUTH_MODE', valueFrom: { configMapKeyRef: { name: 'mine', key: 'mode' } } },
        SECRET_ENTRY,
      ],
    });
    expect(overriddenVariables(deployment, target)).toEqual(['API_AUTH_MODE', 'AUTH_MODE']);
    expect(overriddenVariables(applied(), target)).toEqual([]);
  });
});

describe('podContainers', () => {
  /** The gateway container's env once the operator's apply is in, for a live env entry and its owners. */
  function envAfterApply(owners: JsonObject[] | undefined): unknown[] {
    const helmSecret = {
      name: 'OIDC_CLIENT_SECRET',
      valueFrom: { secretKeyRef: { name: 'helm-oidc', key: 'id' } },
    };
    const deployment = live(
      { name: 'gateway', env: [helmSecret, SECRET_ENTRY] },
      {},
      owners ? { managedFields: owners } : {},
    );
    const pod = podContainers(deployment, target);
    if (!pod.ok) throw new Error(pod.message);
    return (pod.containers[0]?.env as unknown[]).map((entry) => (entry as JsonObject).name);
  }
  const ownsEntry = (manager: string, operation: string): JsonObject => ({
    manager,
    operation,
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"gateway"}': {
                'f:env': { 'k:{"name":"OIDC_CLIENT_SECRET"}': { '.': {}, 'f:name': {}, 'f:valueFrom': {} } },
              },
            },
          },
        },
      },
    },
  });

  it('keeps a gateway secret entry another manager owns, so the Secret it reads is still hashed and watched', () => {
    // The operator no longer applies OIDC_CLIENT_SECRET (its AuthConfig does not name it), but helm set it.
    expect(envAfterApply([ownsEntry('helm', 'Apply'), operatorEntry()])).toEqual([
      'OIDC_CLIENT_SECRET',
      'AUTH_SECRET',
    ]);
    expect(envAfterApply([ownsEntry('kubectl-edit', 'Update'), ownsEntry(FIELD_MANAGER, 'Apply')])).toEqual([
      'OIDC_CLIENT_SECRET',
      'AUTH_SECRET',
    ]);
  });

  it('drops a gateway secret entry only the operator applied, as the API server does when it stops applying it', () => {
    expect(envAfterApply([ownsEntry(FIELD_MANAGER, 'Apply')])).toEqual(['AUTH_SECRET']);
    // No record of ownership (an object written before field management): taken for the operator's.
    expect(envAfterApply(undefined)).toEqual(['AUTH_SECRET']);
  });
});
