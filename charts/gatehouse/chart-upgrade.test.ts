/**
 * `helm upgrade` after the operator has patched the gateway Deployment, through the API server (the fake, or a
 * real cluster when KUBECONFIG is set): helm renders the chart (the real helm), applies the Deployment
 * server-side as field manager `helm` (as Helm 4 does, without forcing conflicts), the real reconciler applies
 * its fields for the rendered AuthConfig, and helm applies an upgraded render. The two must own different
 * fields (README.md beside this file, "Who owns which field"; operator/README.md, "Field ownership").
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../gateway/src/clock.ts';
import { ANNOTATIONS, FIELD_MANAGER, GROUP, PLURAL, VERSION } from '../../operator/src/api/names.ts';
import { createReconciler, type Reconciler } from '../../operator/src/reconcile/index.ts';
import { kubeRequest, type KubeResponse, type TestCluster } from '../../test/support/fake-kube/index.ts';
import { findRendered, helmChart, type HelmChart, type Rendered } from '../../test/support/helm-chart.ts';
import { startOperatorCluster, testNamespace } from '../../test/support/operator-cluster.ts';

const NAME = 'gh-gatehouse';
const APPLY = 'application/apply-patch+yaml';

const VALUES = {
  database: { external: { enabled: true, existingSecret: 'gatehouse-db' } },
  secrets: { existingSecret: 'gatehouse-secrets' },
  authConfig: { create: true, apiAuthMode: 'warn' },
};

let chart: HelmChart;
let cluster: TestCluster;
let kc: KubeConfig;

beforeAll(async () => {
  chart = await helmChart();
  cluster = await startOperatorCluster();
  kc = cluster.kc;
});
afterAll(async () => {
  await chart?.close();
  await cluster?.close();
});

interface Container {
  name: string;
  image?: string;
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  envFrom?: unknown[];
}

interface Deployment extends Rendered {
  spec: {
    strategy?: { rollingUpdate?: { maxSurge?: string } };
    template: { metadata: { annotations?: Record<string, string> }; spec: { containers: Container[] } };
  };
}

/** The chart's Deployment and AuthConfig for an image tag, placed in a test's namespace. */
async function render(
  namespace: string,
  tag: string,
): Promise<{ deployment: Deployment; authConfig: Rendered }> {
  const objects = await chart.template({ ...VALUES, image: { tag } });
  const place = (object: Rendered) => ({ ...object, metadata: { ...object.metadata, namespace } });
  return {
    deployment: place(findRendered(objects, 'Deployment', NAME)) as Deployment,
    authConfig: place(findRendered(objects, 'AuthConfig', NAME)),
  };
}

const deploymentPath = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments/${NAME}`;

/** helm's server-side apply of the rendered Deployment (`--force-conflicts` when forced). */
function helmApply(namespace: string, deployment: Deployment, force = false): Promise<KubeResponse> {
  const query = `fieldManager=helm${force ? '&force=true' : ''}`;
  return kubeRequest(kc, 'PATCH', `${deploymentPath(namespace)}?${query}`, deployment, APPLY);
}

async function read(namespace: string): Promise<Deployment> {
  return (await kubeRequest(kc, 'GET', deploymentPath(namespace))).body as Deployment;
}

function gateway(deployment: Deployment): Container {
  const found = deployment.spec.template.spec.containers.find((container) => container.name === 'gateway');
  if (!found) throw new Error('no gateway container');
  return found;
}

/** Which version of the Deployment is stored: any write moves the fake's resourceVersion, spec changes the generation. */
function version(deployment: Deployment): string {
  const metadata = deployment.metadata as { resourceVersion?: string; generation?: number };
  return cluster.fake ? `resourceVersion ${metadata.resourceVersion}` : `generation ${metadata.generation}`;
}

/** The operator's fields of a Deployment: envFrom, the secret env entries, the two annotations, maxSurge. */
function operatorFields(deployment: Deployment) {
  const annotations = deployment.spec.template.metadata.annotations ?? {};
  return {
    envFrom: gateway(deployment).envFrom,
    secretEnv: (gateway(deployment).env ?? []).filter((entry) => entry.valueFrom !== undefined),
    configHash: annotations[ANNOTATIONS.configHash],
    secretsHash: annotations[ANNOTATIONS.secretsHash],
    maxSurge: deployment.spec.strategy?.rollingUpdate?.maxSurge,
  };
}

/** A namespace where helm installed tag 1.0.0 and the real reconciler then applied the rendered AuthConfig. */
async function installed(prefix: string): Promise<{ namespace: string; reconciler: Reconciler }> {
  const namespace = await testNamespace(kc, prefix);
  const { deployment, authConfig } = await render(namespace, '1.0.0');
  const install = await helmApply(namespace, deployment);
  expect(install.status, JSON.stringify(install.body)).toBe(201);
  const path = `/apis/${GROUP}/${VERSION}/namespaces/${namespace}/${PLURAL}`;
  expect((await kubeRequest(kc, 'POST', path, authConfig)).status).toBe(201);
  const reconciler = createReconciler({
    kubeConfig: kc,
    clock: createManualClock(Date.UTC(2026, 0, 1)),
    analysis: { analyse: () => Promise.resolve({ ok: true, gatedRequests: 5000, failureRatio: 0 }) },
  });
  await reconciler.reconcile({ namespace, name: NAME });
  return { namespace, reconciler };
}

describe('helm upgrade after the operator patched the gateway Deployment', () => {
  it('keeps the operator fields, meets no conflict, and leaves the operator nothing more to write', async () => {
    const { namespace, reconciler } = await installed('chart-upgrade');
    const patched = await read(namespace);
    const own = operatorFields(patched);
    expect(own.envFrom).toEqual([
      { configMapRef: { name: expect.stringMatching(/^gh-gatehouse-env-/) as string } },
    ]);
    expect(own.secretEnv.map((entry) => entry.name)).toContain('AUTH_SECRET');
    expect(own.configHash).toMatch(/^[0-9a-f]{10}$/);
    expect(own.secretsHash).toMatch(/^[0-9a-f]{16}$/);
    expect(own.maxSurge).toBe('100%');

    const { deployment } = await render(namespace, '2.0.0');
    const upgrade = await helmApply(namespace, deployment);
    expect(upgrade.status, JSON.stringify(upgrade.body)).toBe(200);
    const upgraded = await read(namespace);
    expect(gateway(upgraded).image).toBe('gatehouse:2.0.0');
    expect(operatorFields(upgraded)).toEqual(own);
    // The chart's own env entries are back as rendered, the operator's beside them.
    for (const entry of gateway(deployment).env ?? []) expect(gateway(upgraded).env).toContainEqual(entry);

    await reconciler.reconcile({ namespace, name: NAME });
    expect(version(await read(namespace))).toBe(version(upgraded));
  });

  it('refuses a render that sets envFrom on the gateway container with 409, unless forced', async () => {
    const { namespace, reconciler } = await installed('chart-envfrom');
    const { deployment } = await render(namespace, '1.0.0');
    const extra = { secretRef: { name: 'gatehouse-extra' } };
    gateway(deployment).envFrom = [extra];

    const refused = await helmApply(namespace, deployment);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      reason: 'Conflict',
      message: `Apply failed with 1 conflict: conflict with "${FIELD_MANAGER}": .spec.template.spec.containers[name="gateway"].envFrom`,
    });

    const forced = await helmApply(namespace, deployment, true);
    expect(forced.status).toBe(200);
    expect(gateway(await read(namespace)).envFrom).toEqual([extra]);
    // The operator is the authority for envFrom: it takes it back, keeping the chart's source first.
    await reconciler.reconcile({ namespace, name: NAME });
    expect(gateway(await read(namespace)).envFrom).toEqual([
      extra,
      { configMapRef: { name: expect.stringMatching(/^gh-gatehouse-env-/) as string } },
    ]);
  });
});
