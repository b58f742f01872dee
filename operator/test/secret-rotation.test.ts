/**
 * Secret rotation rolls the gateway (operator/README.md, "Secret rotation"): the running operator (runtime and
 * real reconciler, through the real @kubernetes/client-node) watches the Secrets the gateway's pods read, so
 * rotating one changes the pod template's secrets-hash annotation — exactly once — while a Secret the pods do
 * not read changes nothing. The Deployment is watched from the start, so every pod template the API server
 * stored is seen, not only the last one.
 *
 * With KUBECONFIG set the suite runs against that cluster (it installs the CRD, each test has its own namespace).
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubeConfig,
  type V1Deployment,
  type V1EnvVar,
} from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { systemClock } from '../../gateway/src/operator-api.ts';
import { ANNOTATIONS, GROUP, KIND, PLURAL, VERSION } from '../src/api/names.ts';
import { createReconciler } from '../src/reconcile/index.ts';
import type { ObjectKey, ReconcileResult } from '../src/reconcile/types.ts';
import { startOperator, type RunningOperator } from '../src/runtime/index.ts';
import { eventually } from '../../test/support/eventually.ts';
import type { TestCluster } from '../../test/support/fake-kube/index.ts';
import {
  createFixtureSecret,
  FIXTURE_SECRET,
  gateSecrets,
  specWith,
} from '../../test/support/operator/fixtures.ts';
import { startOperatorCluster, testNamespace } from '../../test/support/operator-cluster.ts';

let cluster: TestCluster;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;
const running: RunningOperator[] = [];

beforeAll(async () => {
  cluster = await startOperatorCluster();
  kc = cluster.kc;
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((operator) => operator.stop()));
});

afterAll(async () => {
  await cluster.close();
});

/** Every reconcile that finished, in order, so a test can wait for one that began after a change. */
function countingReconciler() {
  const finished: Array<{ key: string; startedAt: number }> = [];
  const real = createReconciler({
    kubeConfig: kc,
    clock: systemClock,
    analysis: { analyse: () => Promise.reject(new Error('no analysis in phase 0')) },
  });
  return {
    finished,
    reconciler: {
      async reconcile(key: ObjectKey): Promise<ReconcileResult> {
        const startedAt = performance.now();
        const result = await real.reconcile(key);
        finished.push({ key: `${key.namespace}/${key.name}`, startedAt });
        return result;
      },
    },
  };
}

/** The secrets-hash annotation of every pod template the API server stored for the Deployment, in order. */
async function watchSecretsHashes(namespace: string): Promise<Array<string | undefined>> {
  const seen: Array<string | undefined> = [];
  const controller = await new Watch(kc).watch(
    `/apis/apps/v1/namespaces/${namespace}/deployments`,
    {},
    (type: string, object: V1Deployment) => {
      if (type !== 'ADDED' && type !== 'MODIFIED') return;
      const hash = object.spec?.template.metadata?.annotations?.[ANNOTATIONS.secretsHash];
      if (seen.length === 0 || seen.at(-1) !== hash) seen.push(hash);
    },
    () => undefined,
  );
  onTestFinished(() => controller.abort());
  return seen;
}

/**
 * A namespace with the fixture Secret, an unrelated one, the installer's Secret `installer-tokens`, the gateway
 * Deployment (with `installerEnv` on its gateway container, as its installer wrote it) and a running operator.
 */
async function setUp(installerEnv: V1EnvVar[] = []) {
  const namespace = await testNamespace(kc, 'rotation');
  await createFixtureSecret(kc, namespace);
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'unrelated' }, stringData: { token: 'one' } },
  });
  await core.createNamespacedSecret({
    namespace,
    body: { metadata: { name: 'installer-tokens' }, stringData: { messaging: 'one' } },
  });
  await apps.createNamespacedDeployment({
    namespace,
    body: {
      metadata: { name: 'gatehouse' },
      spec: {
        selector: { matchLabels: { app: 'gatehouse' } },
        template: {
          metadata: { labels: { app: 'gatehouse' } },
          spec: { containers: [{ name: 'gateway', image: 'gatehouse:1', env: installerEnv }] },
        },
      },
    },
  });
  const hashes = await watchSecretsHashes(namespace);
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: KIND,
      metadata: { name: 'gateway' },
      spec: specWith({ secretEnv: gateSecrets }),
    },
  });
  const counter = countingReconciler();
  const operator = await startOperator({
    kubeConfig: kc,
    namespace,
    identity: `operator-${namespace}`,
    port: 0,
    host: '127.0.0.1',
    watchNamespace: namespace,
    reconciler: counter.reconciler,
    leaderElection: { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 },
  });
  running.push(operator);
  const readDeployment = () => apps.readNamespacedDeployment({ namespace, name: 'gatehouse' });
  const hashOf = (d: V1Deployment) => d.spec?.template.metadata?.annotations?.[ANNOTATIONS.secretsHash];
  await eventually('the first pod template with a secrets hash', 20_000, async () =>
    hashOf(await readDeployment()),
  );

  /** Waits for a reconcile of the AuthConfig that began after now, by touching the AuthConfig's labels. */
  const settle = async (): Promise<void> => {
    const after = performance.now();
    await custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace,
        name: 'gateway',
        body: { metadata: { labels: { 'example.com/touched': String(Date.now()) } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await eventually('a reconcile after the change', 20_000, () =>
      Promise.resolve(counter.finished.some((call) => call.startedAt > after) || undefined),
    );
  };
  const rotate = (name: string, stringData: Record<string, string>) =>
    core.replaceNamespacedSecret({ namespace, name, body: { metadata: { name }, stringData } });
  return { namespace, hashes, readDeployment, hashOf, settle, rotate };
}

describe('rotating a Secret the gateway reads', () => {
  it('changes the pod template hash annotation exactly once', async () => {
    const t = await setUp();
    await t.settle();
    const before = await t.readDeployment();
    const first = t.hashOf(before);

    await t.rotate(FIXTURE_SECRET, {
      'auth-secret': `new-${'n'.repeat(32)},${'a'.repeat(32)}`,
      'internal-api-secret': 'b'.repeat(32),
    });
    // Only the Secret's watch event can bring this reconcile: nothing else changed.
    const second = await eventually('the pod template after the rotation', 20_000, async () => {
      const hash = t.hashOf(await t.readDeployment());
      return hash !== first ? hash : undefined;
    });
    await t.settle();
    await t.settle();

    const after = await t.readDeployment();
    expect(t.hashOf(after)).toBe(second);
    expect(after.metadata?.generation).toBe((before.metadata?.generation ?? 0) + 1);
    expect(t.hashes).toEqual([undefined, first, second]);
  });

  it('changes nothing when a Secret the gateway does not read is rotated', async () => {
    const t = await setUp();
    await t.settle();
    const before = await t.readDeployment();

    await t.rotate('unrelated', { token: 'two' });
    await t.settle();

    const after = await t.readDeployment();
    expect(after.metadata?.generation).toBe(before.metadata?.generation);
    expect(t.hashOf(after)).toBe(t.hashOf(before));
    expect(t.hashes).toEqual([undefined, t.hashOf(before)]);
  });

  it('rolls the pods for a Secret that an env entry of the installer (not the AuthConfig) reads', async () => {
    // A gateway variable the AuthConfig does not set, read from a Secret by the Deployment's own definition: the
    // operator does not own the entry, the API server keeps it, so its Secret is hashed and watched too.
    const t = await setUp([
      {
        name: 'MESSAGING_API_TOKEN',
        valueFrom: { secretKeyRef: { name: 'installer-tokens', key: 'messaging' } },
      },
    ]);
    await t.settle();
    const first = t.hashOf(await t.readDeployment());

    await t.rotate('installer-tokens', { messaging: 'two' });
    const second = await eventually('the pod template after the rotation', 20_000, async () => {
      const hash = t.hashOf(await t.readDeployment());
      return hash !== first ? hash : undefined;
    });
    await t.settle();

    const after = await t.readDeployment();
    expect(after.spec?.template.spec?.containers[0]?.env?.map((entry) => entry.name)).toContain(
      'MESSAGING_API_TOKEN',
    );
    expect(t.hashes).toEqual([undefined, first, second]);
  });
});
