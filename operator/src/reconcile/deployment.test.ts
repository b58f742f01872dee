import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../api/names.ts';
import { planDeployment, type DeploymentTarget } from './deployment.ts';
import type { JsonObject } from '../api/json.ts';

const target: DeploymentTarget = {
  authConfigName: 'gw',
  configMapName: 'gw-env-bbbbbbbbbb',
  hash: 'bbbbbbbbbb',
  secretsHash: 'cccccccccccccccc',
  secretEnv: [{ name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'auth' } } }],
  plainNames: ['API_AUTH_MODE', 'AUTH_MODE'],
};

function live(container: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    metadata: { name: 'gatehouse', namespace: 'ns' },
    spec: { template: { spec: { containers: [container, { name: 'sidecar', image: 'x' }] } }, ...extra },
  };
}

function containersOf(plan: ReturnType<typeof planDeployment>): JsonObject[] {
  if (!plan.ok) throw new Error(plan.message);
  const spec = plan.applyConfiguration.spec as JsonObject;
  const template = spec.template as JsonObject;
  return (template.spec as JsonObject).containers as JsonObject[];
}

describe('planDeployment', () => {
  it('replaces what the operator set before and what would shadow the ConfigMap, keeps the rest', () => {
    const plan = planDeployment(
      live({
        name: 'gateway',
        image: 'gatehouse:1',
        envFrom: [{ configMapRef: { name: 'gw-env-aaaaaaaaaa' } }, { secretRef: { name: 'extra' } }],
        env: [
          { name: 'NODE_OPTIONS', value: '--x' },
          { name: 'API_AUTH_MODE', value: 'enforce' }, // would shadow the ConfigMap, defeating a rollback
          { name: 'INTERNAL_API_SECRET', valueFrom: { secretKeyRef: { name: 'old', key: 'k' } } },
        ],
      }),
      target,
    );
    const [gateway, sidecar] = containersOf(plan);
    expect(gateway).toEqual({
      name: 'gateway',
      image: 'gatehouse:1',
      envFrom: [{ secretRef: { name: 'extra' } }, { configMapRef: { name: 'gw-env-bbbbbbbbbb' } }],
      env: [
        { name: 'NODE_OPTIONS', value: '--x' },
        { name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'auth' } } },
      ],
    });
    expect(sidecar).toEqual({ name: 'sidecar', image: 'x' });
    expect(plan).toMatchObject({
      ok: true,
      upToDate: false,
      applyConfiguration: {
        spec: {
          strategy: { rollingUpdate: { maxSurge: '100%' } },
          template: { metadata: { annotations: { [ANNOTATIONS.configHash]: 'bbbbbbbbbb' } } },
        },
      },
    });
  });

  it('is up to date once applied, and picks the named container', () => {
    const first = planDeployment(live({ name: 'gateway' }), { ...target, container: 'sidecar' });
    if (!first.ok) throw new Error(first.message);
    const applied = first.applyConfiguration;
    expect(containersOf(first)[0]).toEqual({ name: 'gateway' });
    expect(planDeployment(applied, { ...target, container: 'sidecar' })).toMatchObject({ upToDate: true });
  });

  it('leaves the strategy alone under Recreate and reports a missing container', () => {
    const plan = planDeployment(live({ name: 'gateway' }, { strategy: { type: 'Recreate' } }), target);
    expect(plan.ok && (plan.applyConfiguration.spec as JsonObject).strategy).toBeUndefined();
    expect(planDeployment(live({ name: 'gateway' }), { ...target, container: 'nope' })).toMatchObject({
      ok: false,
      reason: 'ContainerNotFound',
    });
  });
});
