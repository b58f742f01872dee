/**
 * The AuthConfig reconciler (operator/README.md, "Reconciliation") through the real @kubernetes/client-node
 * against the fake API server (test/support/fake-kube/README.md), which speaks the real HTTP protocol:
 * ConfigMaps, the Deployment's pod template, status, events, idempotency, the rollout on a manual clock with a
 * fake analysis source, and a 409 fault.
 *
 * With KUBECONFIG set it runs against that cluster instead: the suite installs the CRD, each test works in a
 * namespace of its own that is deleted when the test ends, and the fault test skips.
 */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1ConfigMap,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchmarkApply } from '../../bench/lib/apply-benchmark.ts';
import { createManualClock, type ManualClock } from '../../gateway/src/clock.ts';
import { createPrometheusAnalysis } from '../src/prometheus/analysis-source.ts';
import type { AnalysisSource } from '../src/prometheus/types.ts';
import { FIELD_MANAGER, GROUP, LABELS, MANAGED_BY, PLURAL, VERSION } from '../src/api/names.ts';
import {
  createFixtureSecret,
  FIXTURE_SECRET,
  gateSecrets,
  minimalSpec,
  specWith,
} from '../../test/support/operator/fixtures.ts';
import type { AuthConfigSpecInput, AuthConfigStatus } from '../src/api/types.generated.ts';
import { ANNOTATIONS, createReconciler, type Reconciler } from '../src/reconcile/index.ts';
import type { Analysis } from '../src/rollout/types.ts';
import { freePort } from '../../test/support/process.ts';
import type { FakeKube, TestCluster } from '../../test/support/fake-kube/index.ts';
import {
  AUTHCONFIG_RESOURCE as AUTHCONFIG,
  startOperatorCluster,
  testNamespace,
} from '../../test/support/operator-cluster.ts';

let cluster: TestCluster;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;

beforeAll(async () => {
  cluster = await startOperatorCluster();
  kc = cluster.kc;
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
});

afterAll(async () => {
  await cluster.close();
});

/** A fake analysis source: answers what the test sets and records every request. */
function fakeAnalysis(initial: Analysis = { ok: true, gatedRequests: 5000, failureRatio: 0 }) {
  const calls: Array<Parameters<AnalysisSource['analyse']>[0]> = [];
  let answer = initial;
  const source: AnalysisSource = {
    analyse(request) {
      calls.push(request);
      return Promise.resolve(answer);
    },
  };
  return { source, calls, answer: (next: Analysis) => (answer = next) };
}

interface Harness {
  namespace: string;
  name: string;
  clock: ManualClock;
  analysis: ReturnType<typeof fakeAnalysis>;
  metrics: { phases: number[]; transitions: string[]; intents: string[] };
  reconciler: Reconciler;
  reconcile(): ReturnType<Reconciler['reconcile']>;
}

/** A namespace of its own per test (deleted when the test ends), a Deployment and a reconciler. */
async function setUp(options: { deployment?: boolean; source?: AnalysisSource } = {}): Promise<Harness> {
  const namespace = await testNamespace(kc, 'reconcile');
  const name = 'gateway';
  await createFixtureSecret(kc, namespace);
  if (options.deployment !== false) await apps.createNamespacedDeployment({ namespace, body: deployment() });
  const clock = createManualClock(Date.UTC(2026, 0, 1));
  const analysis = fakeAnalysis();
  const metrics = { phases: [] as number[], transitions: [] as string[], intents: [] as string[] };
  const reconciler = createReconciler({
    kubeConfig: kc,
    clock,
    analysis: options.source ?? analysis.source,
    metrics: {
      setPhase: (_key, phase) => void metrics.phases.push(phase),
      recordTransition: (_key, t) => void metrics.transitions.push(`${t.from}→${t.to} ${t.reason}`),
      setIntent: (_key, i) =>
        void metrics.intents.push(`${i.desiredPhase}/${i.automaticPromotion ? 'auto' : 'manual'}`),
    },
  });
  return {
    namespace,
    name,
    clock,
    analysis,
    metrics,
    reconciler,
    reconcile: () => reconciler.reconcile({ namespace, name }),
  };
}

/** The gateway Deployment: a sidecar, probes and user env the operator must leave alone. */
function deployment(): V1Deployment {
  return {
    metadata: { name: 'gatehouse', labels: { app: 'gatehouse' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'gatehouse' } },
      template: {
        metadata: { labels: { app: 'gatehouse' }, annotations: { 'example.com/keep': 'yes' } },
        spec: {
          containers: [
            {
              name: 'gateway',
              image: 'gatehouse:1',
              env: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=256' }],
              livenessProbe: { exec: { command: ['node', 'healthcheck.js'] } },
            },
            { name: 'proxy', image: 'envoy:1' },
          ],
        },
      },
    },
  };
}

async function applyAuthConfig(h: Harness, spec: AuthConfigSpecInput, annotations?: Record<string, string>) {
  const metadata = { name: h.name, namespace: h.namespace, ...(annotations ? { annotations } : {}) };
  const existing = await readAuthConfig(h).catch(() => undefined);
  const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'AuthConfig', metadata, spec };
  if (existing === undefined) {
    await custom.createNamespacedCustomObject({ ...AUTHCONFIG, namespace: h.namespace, body });
    return;
  }
  const resourceVersion = existing.metadata.resourceVersion;
  await custom.replaceNamespacedCustomObject({
    ...AUTHCONFIG,
    namespace: h.namespace,
    name: h.name,
    body: { ...body, metadata: { ...metadata, resourceVersion } },
  });
}

/**
 * Stores an AuthConfig in the fake as it is sent: written straight into the store as a type without the CRD's
 * admission (no defaults, no schema, no CEL rules), which no write through the API can do.
 */
function storePastAdmission(fake: FakeKube, h: Harness, spec: AuthConfigSpecInput): void {
  const resource = fake.registry.find(GROUP, VERSION, PLURAL);
  if (!resource) throw new Error('the fake serves no AuthConfig resource');
  const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'AuthConfig', metadata: { name: h.name }, spec };
  fake.store.create({ ...resource, admit: undefined }, h.namespace, body);
}

interface StoredAuthConfig {
  metadata: { resourceVersion: string; uid: string; generation: number };
  status?: AuthConfigStatus;
}

async function readAuthConfig(h: Harness): Promise<StoredAuthConfig> {
  return (await custom.getNamespacedCustomObject({
    ...AUTHCONFIG,
    namespace: h.namespace,
    name: h.name,
  })) as StoredAuthConfig;
}

const APPS = { group: 'apps', version: 'v1', plural: 'deployments' } as const;

interface PodTemplateFields {
  'f:spec'?: { 'f:template'?: { 'f:spec'?: { 'f:containers'?: Record<string, Record<string, unknown>> } } };
}

/** The operator's server-side-apply fields of the Deployment (its managedFields entry). */
function operatorFields(d: V1Deployment): PodTemplateFields | undefined {
  const entries = d.metadata?.managedFields ?? [];
  const own = entries.find((entry) => entry.manager === FIELD_MANAGER && entry.operation === 'Apply');
  return own?.fieldsV1 as PodTemplateFields | undefined;
}

const readDeployment = (h: Harness) =>
  apps.readNamespacedDeployment({ namespace: h.namespace, name: 'gatehouse' });

async function configMaps(h: Harness): Promise<V1ConfigMap[]> {
  const list = await core.listNamespacedConfigMap({
    namespace: h.namespace,
    labelSelector: `${LABELS.authConfig}=${h.name}`,
  });
  return list.items;
}

function condition(status: AuthConfigStatus | undefined, type: string) {
  return status?.conditions?.find((item) => item.type === type);
}

/**
 * The reasons of the operator's Events, which are about the AuthConfig. A cluster with a controller-manager (kind,
 * k3d) adds its own Events to the namespace (ScalingReplicaSet, pods that cannot pull the image): not counted.
 */
async function eventReasons(h: Harness): Promise<string[]> {
  const list = await core.listNamespacedEvent({ namespace: h.namespace });
  return list.items
    .filter((event) => event.involvedObject.kind === 'AuthConfig')
    .map((event) => event.reason ?? '');
}

function gatewayContainer(d: V1Deployment) {
  const container = d.spec?.template.spec?.containers.find((item) => item.name === 'gateway');
  if (!container) throw new Error('no gateway container');
  return container;
}

/** The env ConfigMap the gateway container currently takes its settings from. */
async function currentConfigMap(h: Harness): Promise<V1ConfigMap | undefined> {
  const name = referencedConfigMap(await readDeployment(h));
  return (await configMaps(h)).find((item) => item.metadata?.name === name);
}

/** The env ConfigMap the Deployment's gateway container takes its settings from. */
function referencedConfigMap(d: V1Deployment): string | undefined {
  return gatewayContainer(d).envFrom?.find((source) => source.configMapRef)?.configMapRef?.name;
}

/**
 * Which version of the Deployment the reconciler left: on the fake, its resourceVersion (any write moves it); on
 * a real cluster, its generation (any change to its spec moves it), because a controller-manager writes the
 * Deployment's status too.
 */
function deploymentVersion(d: V1Deployment): string {
  return cluster.fake
    ? `resourceVersion ${d.metadata?.resourceVersion}`
    : `generation ${d.metadata?.generation}`;
}

/** Versions of everything the reconciler may write. */
async function versions(h: Harness) {
  const [authConfig, target, maps] = await Promise.all([readAuthConfig(h), readDeployment(h), configMaps(h)]);
  return {
    authConfig: authConfig.metadata.resourceVersion,
    deployment: deploymentVersion(target),
    configMaps: maps.map((item) => `${item.metadata?.name}@${item.metadata?.resourceVersion}`).sort(),
  };
}

const rolloutSpec = (overrides: Partial<AuthConfigSpecInput> = {}): AuthConfigSpecInput =>
  specWith({
    secretEnv: gateSecrets,
    apiAuth: {
      mode: 'enforce',
      rollout: {
        minGatedRequests: 100,
        maxWouldDenyRatio: 0.01,
        analysisInterval: '5m',
        prometheus: { url: 'http://prometheus.test:9090' },
      },
    },
    ...overrides,
  });

describe('applying an AuthConfig', () => {
  it('creates the hashed, immutable, owned ConfigMap and points the Deployment at it by server-side apply', async () => {
    const h = await setUp();
    await applyAuthConfig(h, minimalSpec);
    expect(await h.reconcile()).toEqual({ secrets: [FIXTURE_SECRET] });

    const [map] = await configMaps(h);
    const stored = await readAuthConfig(h);
    const hash = map?.metadata?.labels?.[LABELS.configHash] ?? '';
    expect(map?.metadata?.name).toBe(`gateway-env-${hash}`);
    expect(map?.immutable).toBe(true);
    expect(map?.data).toMatchObject({ API_AUTH_MODE: 'disabled', AUTH_MODE: 'local' });
    expect(map?.data).not.toHaveProperty('AUTH_SECRET');
    expect(map?.metadata?.labels).toMatchObject({
      [LABELS.authConfig]: 'gateway',
      [LABELS.managedBy]: MANAGED_BY,
    });
    expect(map?.metadata?.ownerReferences).toEqual([
      expect.objectContaining({
        kind: 'AuthConfig',
        name: 'gateway',
        uid: stored.metadata.uid,
        controller: true,
      }),
    ]);

    const target = await readDeployment(h);
    const gateway = gatewayContainer(target);
    const annotations = target.spec?.template.metadata?.annotations ?? {};
    expect(Object.keys(annotations).sort()).toEqual(
      ['example.com/keep', ANNOTATIONS.configHash, ANNOTATIONS.secretsHash].sort(),
    );
    expect(annotations).toMatchObject({ 'example.com/keep': 'yes', [ANNOTATIONS.configHash]: hash });
    expect(annotations[ANNOTATIONS.secretsHash]).toMatch(/^[0-9a-f]{16}$/);
    expect(referencedConfigMap(target)).toBe(map?.metadata?.name);
    expect(gateway.env).toEqual([
      { name: 'NODE_OPTIONS', value: '--max-old-space-size=256' },
      { name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 'gatehouse-secrets', key: 'auth-secret' } } },
    ]);
    // Other fields untouched: the image, the probe, the user's env entry, the sidecar.
    expect(gateway.image).toBe('gatehouse:1');
    expect(gateway.livenessProbe?.exec?.command).toEqual(['node', 'healthcheck.js']);
    expect(target.spec?.template.spec?.containers.map((item) => item.name)).toEqual(['gateway', 'proxy']);
    expect(target.spec?.strategy?.rollingUpdate?.maxSurge).toBe('100%');
    if (cluster.fake) {
      const patch = cluster.fake.requests.find(
        (request) => request.method === 'PATCH' && request.path.includes('/deployments/'),
      );
      expect(patch).toMatchObject({ contentType: 'application/apply-patch+yaml' });
      expect(patch?.query.fieldManager).toBe(FIELD_MANAGER);
    }

    expect(stored.status?.observedGeneration).toBe(stored.metadata.generation);
    expect(stored.status?.appliedHash).toBe(hash);
    expect(stored.status?.previousHash).toBeUndefined();
    expect(condition(stored.status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Applied',
      observedGeneration: stored.metadata.generation,
      lastTransitionTime: '2026-01-01T00:00:00.000Z',
    });
    expect(stored.status?.conditions?.map((item) => item.type)).toEqual([
      'Ready',
      'Progressing',
      'Degraded',
      'Promotable',
      'Phase3Ready',
    ]);
    expect(stored.status?.rollout).toMatchObject({ effectiveMode: 'disabled', phase: 0 });
    expect(await eventReasons(h)).toEqual(expect.arrayContaining(['ConfigMapCreated', 'DeploymentPatched']));
  });

  it('writes nothing when reconciling an unchanged AuthConfig again', async () => {
    const h = await setUp();
    await applyAuthConfig(h, minimalSpec);
    await h.reconcile();
    const before = await versions(h);
    const eventsBefore = (await eventReasons(h)).length;
    cluster.fake?.clearRequests();

    h.clock.advance(60_000);
    await h.reconcile();
    await h.reconcile();

    expect(await versions(h)).toEqual(before);
    expect((await eventReasons(h)).length).toBe(eventsBefore);
    if (cluster.fake) expect(cluster.fake.requests.filter((request) => request.method !== 'GET')).toEqual([]);
  });

  it('rolls a spec change out as a new ConfigMap, keeping the previous hash', async () => {
    const h = await setUp();
    await applyAuthConfig(h, minimalSpec);
    await h.reconcile();
    const first = (await readAuthConfig(h)).status?.appliedHash;

    await applyAuthConfig(h, specWith({ env: [{ name: 'LOG_LEVEL', value: 'debug' }] }));
    await h.reconcile();

    const stored = await readAuthConfig(h);
    const maps = await configMaps(h);
    expect(maps).toHaveLength(2);
    expect(stored.status?.appliedHash).not.toBe(first);
    expect(stored.status?.previousHash).toBe(first);
    expect(stored.status?.observedGeneration).toBe(2);
    const target = await readDeployment(h);
    expect(target.spec?.template.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(
      stored.status?.appliedHash,
    );
    const current = maps.find((item) => item.metadata?.name === referencedConfigMap(target));
    expect(current?.data?.LOG_LEVEL).toBe('debug');
    // The old ConfigMap is kept intact (immutable; rollback material).
    expect(maps.some((item) => item.metadata?.name === `gateway-env-${first}`)).toBe(true);
  });

  it('keeps the 5 most recent ConfigMaps, the applied one and the previous one among them', async () => {
    const h = await setUp();
    const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'debug', 'trace'];
    const names: string[] = [];
    for (const level of levels) {
      await applyAuthConfig(h, specWith({ env: [{ name: 'LOG_LEVEL', value: level }] }));
      await h.reconcile();
      names.push(referencedConfigMap(await readDeployment(h)) ?? '');
    }
    const kept = (await configMaps(h)).map((item) => item.metadata?.name);
    expect(kept).toHaveLength(5);
    expect(kept).toContain(names.at(-1));
    expect(kept).toContain(names.at(-2));
  });
});

describe('field ownership', () => {
  const applyPatch = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

  it('reports env entries it does not own that override the ConfigMap as Ready=False EnvOverridden, and leaves them', async () => {
    const h = await setUp({ deployment: false });
    const body = deployment();
    const gateway = body.spec?.template.spec?.containers[0];
    gateway?.env?.push({ name: 'API_AUTH_MODE', value: 'enforce' });
    await apps.createNamespacedDeployment({ namespace: h.namespace, body });
    await applyAuthConfig(h, minimalSpec);
    await h.reconcile();

    const stored = await readAuthConfig(h);
    expect(condition(stored.status, 'Ready')).toMatchObject({ status: 'False', reason: 'EnvOverridden' });
    expect(condition(stored.status, 'Ready')?.message).toContain('API_AUTH_MODE');
    const target = await readDeployment(h);
    expect(gatewayContainer(target).env).toContainEqual({ name: 'API_AUTH_MODE', value: 'enforce' });
    expect(referencedConfigMap(target)).toBe(`gateway-env-${stored.status?.appliedHash}`);
    expect(await eventReasons(h)).toContain('EnvOverridden');

    // Its owner takes it out: the next reconcile is Ready, with nothing more to write to the Deployment.
    const index = gatewayContainer(target).env?.findIndex((entry) => entry.name === 'API_AUTH_MODE');
    await apps.patchNamespacedDeployment({
      namespace: h.namespace,
      name: 'gatehouse',
      body: [{ op: 'remove', path: `/spec/template/spec/containers/0/env/${index}` }],
    });
    const before = deploymentVersion(await readDeployment(h));
    await h.reconcile();
    expect(condition((await readAuthConfig(h)).status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Applied',
    });
    expect(deploymentVersion(await readDeployment(h))).toBe(before);
  });

  it('gives back the fields an operator that applied whole containers co-owned, so the installer can change them', async () => {
    const h = await setUp({ deployment: false });
    const whole = { apiVersion: 'apps/v1', kind: 'Deployment', ...deployment() };
    const applyAs = async (fieldManager: string, body: typeof whole, force = false): Promise<void> => {
      await custom.patchNamespacedCustomObject(
        { ...APPS, namespace: h.namespace, name: 'gatehouse', body, fieldManager, force },
        applyPatch,
      );
    };
    await applyAs('installer', whole);
    await applyAs(FIELD_MANAGER, whole, true); // as the operator once did: every container, whole
    await applyAuthConfig(h, minimalSpec);
    await h.reconcile();

    const containers = operatorFields(await readDeployment(h))?.['f:spec']?.['f:template']?.['f:spec']?.[
      'f:containers'
    ];
    expect(Object.keys(containers ?? {})).toEqual(['k:{"name":"gateway"}']);
    expect(Object.keys(containers?.['k:{"name":"gateway"}'] ?? {}).sort()).toEqual(
      ['.', 'f:env', 'f:envFrom', 'f:name'].sort(),
    );
    const upgraded = structuredClone(whole);
    const container = upgraded.spec?.template.spec?.containers[0];
    if (container) container.image = 'gatehouse:2';
    await applyAs('installer', upgraded);
    expect(gatewayContainer(await readDeployment(h)).image).toBe('gatehouse:2');
  });
});

describe('refusing', () => {
  it('marks AUTH_MODE=local with OIDC enabled InvalidSpec and leaves the Deployment untouched', async () => {
    const h = await setUp();
    const before = await readDeployment(h);
    const invalid = specWith({
      oidc: { enabled: true, issuer: 'https://login.example.com', clientId: 'gatehouse' },
    });
    // Admission refuses it first (the CRD's CEL rule), on a real API server as on the fake.
    const refused = await applyAuthConfig(h, invalid).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApiException);
    expect(refused).toMatchObject({ code: 422 });
    expect(String((refused as ApiException<unknown>).body)).toContain('spec.oidc.enabled');
    // The reconciler's own guard, for an object that got past admission anyway (stored under an older CRD,
    // or one installed without its rules): only the fake can store it, by skipping its admission.
    if (!cluster.fake) return;
    storePastAdmission(cluster.fake, h, invalid);
    expect(await h.reconcile()).toEqual({});

    const stored = await readAuthConfig(h);
    expect(condition(stored.status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'InvalidSpec',
      observedGeneration: 1,
    });
    expect(condition(stored.status, 'Ready')?.message).toMatch(/oidc/i);
    expect(stored.status?.observedGeneration).toBe(1);
    expect(stored.status?.appliedHash).toBeUndefined();
    expect(deploymentVersion(await readDeployment(h))).toBe(deploymentVersion(before));
    expect(await configMaps(h)).toEqual([]);
    expect(await eventReasons(h)).toEqual(['InvalidSpec']);

    // Reported once: reconciling the same invalid object again writes nothing.
    const version = stored.metadata.resourceVersion;
    await h.reconcile();
    expect((await readAuthConfig(h)).metadata.resourceVersion).toBe(version);
    expect(await eventReasons(h)).toEqual(['InvalidSpec']);
  });

  it('reports a missing target Deployment and asks to be requeued', async () => {
    const h = await setUp({ deployment: false });
    await applyAuthConfig(h, minimalSpec);
    const result = await h.reconcile();
    expect(result.requeueAfterMs).toBeGreaterThan(0);
    const stored = await readAuthConfig(h);
    expect(condition(stored.status, 'Ready')).toMatchObject({ status: 'False', reason: 'TargetNotFound' });
    expect(await configMaps(h)).toEqual([]);

    await apps.createNamespacedDeployment({ namespace: h.namespace, body: deployment() });
    await h.reconcile();
    expect(condition((await readAuthConfig(h)).status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Applied',
    });
  });
});

describe('the Secrets the pods read', () => {
  const secretsHashOf = (d: V1Deployment) =>
    d.spec?.template.metadata?.annotations?.[ANNOTATIONS.secretsHash];

  it('rolls the pods when a referenced Secret is rotated, once, and not for a Secret they do not read', async () => {
    const h = await setUp();
    await core.createNamespacedSecret({
      namespace: h.namespace,
      body: { metadata: { name: 'unrelated' }, stringData: { token: 'one' } },
    });
    await applyAuthConfig(h, minimalSpec);
    await h.reconcile();
    const before = await readDeployment(h);
    const hashBefore = secretsHashOf(before);

    // A Secret the pods do not read: nothing changes.
    await core.replaceNamespacedSecret({
      namespace: h.namespace,
      name: 'unrelated',
      body: { metadata: { name: 'unrelated' }, stringData: { token: 'two' } },
    });
    const untouched = await versions(h);
    await h.reconcile();
    expect(await versions(h)).toEqual(untouched);

    // The referenced one: a new digest on the pod template, one spec change.
    await core.replaceNamespacedSecret({
      namespace: h.namespace,
      name: FIXTURE_SECRET,
      body: {
        metadata: { name: FIXTURE_SECRET },
        stringData: { 'auth-secret': 'rotated,' + 'a'.repeat(32) },
      },
    });
    await h.reconcile();
    const after = await readDeployment(h);
    expect(secretsHashOf(after)).toMatch(/^[0-9a-f]{16}$/);
    expect(secretsHashOf(after)).not.toBe(hashBefore);
    expect(after.metadata?.generation).toBe((before.metadata?.generation ?? 0) + 1);
    expect(referencedConfigMap(after)).toBe(referencedConfigMap(before));
    const settled = await versions(h);
    await h.reconcile();
    expect(await versions(h)).toEqual(settled);
    // Only the digest is written: no secret value anywhere in the Deployment or the AuthConfig.
    const written = JSON.stringify([after, await readAuthConfig(h)]);
    expect(written).not.toContain('rotated');
    expect(written).not.toContain(Buffer.from('rotated,').toString('base64').slice(0, 8));
  });

  it('reports a missing referenced Secret as Ready=False SecretNotFound, and rolls when it appears', async () => {
    const h = await setUp();
    await applyAuthConfig(
      h,
      specWith({
        secretEnv: [...gateSecrets, { name: 'DATABASE_URL', secretKeyRef: { name: 'db', key: 'url' } }],
      }),
    );
    const result = await h.reconcile();
    expect(result.secrets).toEqual(['db', FIXTURE_SECRET]);
    expect(result.requeueAfterMs).toBeGreaterThan(0);
    const stored = await readAuthConfig(h);
    expect(condition(stored.status, 'Ready')).toMatchObject({ status: 'False', reason: 'SecretNotFound' });
    expect(condition(stored.status, 'Ready')?.message).toContain('db');
    expect(condition(stored.status, 'Ready')?.message).not.toContain(FIXTURE_SECRET);
    expect(await eventReasons(h)).toContain('SecretNotFound');
    const waiting = await readDeployment(h);
    expect(referencedConfigMap(waiting)).toBeDefined();

    await core.createNamespacedSecret({
      namespace: h.namespace,
      body: { metadata: { name: 'db' }, stringData: { url: 'postgres://gatehouse@db/gatehouse' } },
    });
    await h.reconcile();
    const ready = await readDeployment(h);
    expect(secretsHashOf(ready)).not.toBe(secretsHashOf(waiting));
    expect(condition((await readAuthConfig(h)).status, 'Ready')).toMatchObject({
      status: 'True',
      reason: 'Applied',
    });
  });
});

describe('the API_AUTH_MODE rollout', () => {
  it('enters warn, promotes to enforce after the soak on good figures, and rolls back to the kept ConfigMap at once', async () => {
    const h = await setUp();
    // Phase 0 first: the gate disabled.
    await applyAuthConfig(h, rolloutSpec({ apiAuth: { mode: 'disabled' } }));
    await h.reconcile();
    const disabledMap = referencedConfigMap(await readDeployment(h));
    const disabledVersion = (await configMaps(h))[0]?.metadata?.resourceVersion;

    // mode: enforce → warn at once (one step), no analysis yet.
    await applyAuthConfig(h, rolloutSpec());
    const entered = await h.reconcile();
    let stored = await readAuthConfig(h);
    expect(stored.status?.rollout).toMatchObject({ effectiveMode: 'warn', phase: 1 });
    expect(stored.status?.rollout?.history.at(-1)).toMatchObject({
      from: 'disabled',
      to: 'warn',
      reason: 'DesiredModeRaised',
    });
    expect(h.analysis.calls).toEqual([]);
    expect(entered.requeueAfterMs).toBe(5 * 60_000);
    const warnMap = await currentConfigMap(h);
    expect(warnMap?.data?.API_AUTH_MODE).toBe('warn');
    expect(condition(stored.status, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'RolloutInProgress',
    });

    // Between analyses nothing is written, though the soak messages would read differently a minute later.
    h.clock.advance(60_000);
    expect(await h.reconcile()).toEqual({
      requeueAfterMs: 4 * 60_000,
      secrets: [FIXTURE_SECRET],
    });
    expect((await readAuthConfig(h)).metadata.resourceVersion).toBe(stored.metadata.resourceVersion);

    // One interval later: analysed, but the minimum soak (24 h) has not passed.
    h.clock.advance(5 * 60_000);
    expect(await h.reconcile()).toEqual({ requeueAfterMs: 5 * 60_000, secrets: [FIXTURE_SECRET] });
    expect(h.analysis.calls).toHaveLength(1);
    expect(h.analysis.calls[0]).toMatchObject({
      mode: 'warn',
      prometheusUrl: 'http://prometheus.test:9090',
      namespace: h.namespace,
    });
    stored = await readAuthConfig(h);
    expect(condition(stored.status, 'Promotable')).toMatchObject({
      status: 'False',
      reason: 'SoakInProgress',
    });
    expect(stored.status?.rollout?.effectiveMode).toBe('warn');

    // Too little traffic after the soak: inconclusive, stays in warn.
    h.clock.advance(24 * 3600_000);
    h.analysis.answer({ ok: true, gatedRequests: 10, failureRatio: 0 });
    await h.reconcile();
    stored = await readAuthConfig(h);
    expect(stored.status?.rollout?.effectiveMode).toBe('warn');
    expect(condition(stored.status, 'Promotable')).toMatchObject({
      status: 'False',
      reason: 'InsufficientSamples',
    });

    // Enough good traffic: promoted to enforce, rendered into a new ConfigMap.
    h.clock.advance(5 * 60_000);
    h.analysis.answer({ ok: true, gatedRequests: 5000, failureRatio: 0.001 });
    await h.reconcile();
    stored = await readAuthConfig(h);
    expect(stored.status?.rollout).toMatchObject({ effectiveMode: 'enforce', phase: 2 });
    expect(stored.status?.rollout?.history.at(-1)).toMatchObject({
      from: 'warn',
      to: 'enforce',
      reason: 'Promoted',
      figures: { gatedRequests: 5000, failureRatio: 0.001 },
    });
    const enforceTarget = await readDeployment(h);
    const enforceMap = (await configMaps(h)).find(
      (item) => item.metadata?.name === referencedConfigMap(enforceTarget),
    );
    expect(enforceMap?.data?.API_AUTH_MODE).toBe('enforce');
    expect(condition(stored.status, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'AtDesiredMode',
    });
    expect(condition(stored.status, 'Phase3Ready')).toMatchObject({
      status: 'False',
      reason: 'EnforceSoakInProgress',
    });
    expect(await eventReasons(h)).toContain('Promoted');

    // The SRE's rollback annotation: disabled in this reconcile, no analysis, the earlier ConfigMap restored.
    const callsBefore = h.analysis.calls.length;
    h.clock.advance(1000);
    await applyAuthConfig(h, rolloutSpec(), { [ANNOTATIONS.rollback]: 'true' });
    expect(await h.reconcile()).toEqual({ secrets: [FIXTURE_SECRET] });
    stored = await readAuthConfig(h);
    expect(h.analysis.calls).toHaveLength(callsBefore);
    expect(stored.status?.rollout).toMatchObject({ effectiveMode: 'disabled', phase: 0 });
    expect(stored.status?.rollout?.history.at(-1)).toMatchObject({
      from: 'enforce',
      to: 'disabled',
      reason: 'RollbackRequested',
    });
    expect(condition(stored.status, 'Promotable')).toMatchObject({
      status: 'False',
      reason: 'RollbackRequested',
    });
    const rolledBack = await readDeployment(h);
    expect(referencedConfigMap(rolledBack)).toBe(disabledMap);
    const restored = (await configMaps(h)).find((item) => item.metadata?.name === disabledMap);
    expect(restored?.metadata?.resourceVersion).toBe(disabledVersion); // the same kept object, not a new one
    expect(stored.status?.previousHash).toBe(enforceMap?.metadata?.labels?.[LABELS.configHash]);
    expect(rolledBack.spec?.strategy?.rollingUpdate?.maxSurge).toBe('100%');
    expect(await eventReasons(h)).toContain('RollbackRequested');
    // The runtime's rollout metrics heard every transition and the phase of each pass.
    expect(h.metrics.transitions).toEqual([
      'disabled→warn DesiredModeRaised',
      'warn→enforce Promoted',
      'enforce→disabled RollbackRequested',
    ]);
    expect(h.metrics.phases.at(-1)).toBe(0);
    expect(h.metrics.phases).toContain(2);
    // What the AuthConfig asked for: enforce with automatic promotion, then disabled once rollback was requested
    // (what lets an alert tell a rollout stuck in warn from one meant to stay there).
    expect(h.metrics.intents).toContain('2/auto');
    expect(h.metrics.intents.at(-1)).toBe('0/auto');
  });

  it('does not promote while Prometheus cannot be reached, and says why (the real analysis client)', async () => {
    const closed = await freePort();
    const h = await setUp({ source: createPrometheusAnalysis({ timeoutMs: 500 }) });
    const spec = rolloutSpec();
    const unreachable = {
      ...spec,
      apiAuth: {
        ...spec.apiAuth,
        rollout: { ...spec.apiAuth?.rollout, prometheus: { url: `http://127.0.0.1:${closed}` } },
      },
    } as AuthConfigSpecInput;
    await applyAuthConfig(h, unreachable);
    await h.reconcile(); // → warn
    h.clock.advance(24 * 3600_000 + 5 * 60_000);
    await h.reconcile(); // the analysis is due: Prometheus refuses the connection
    const stored = await readAuthConfig(h);
    expect(stored.status?.rollout?.effectiveMode).toBe('warn');
    expect(condition(stored.status, 'Promotable')).toMatchObject({
      status: 'False',
      reason: 'MetricsUnavailable',
    });
    expect(condition(stored.status, 'Promotable')?.message).toMatch(/gatedRequests query/);
    expect(stored.status?.rollout?.consecutiveQueryErrors).toBe(1);
  });

  it('falls back from enforce to warn after consecutive bad checks', async () => {
    const h = await setUp();
    await applyAuthConfig(h, rolloutSpec());
    await h.reconcile(); // → warn
    h.clock.advance(24 * 3600_000 + 5 * 60_000);
    await h.reconcile(); // → enforce
    expect((await readAuthConfig(h)).status?.rollout?.effectiveMode).toBe('enforce');

    h.analysis.answer({ ok: true, gatedRequests: 5000, failureRatio: 0.2 });
    for (let check = 0; check < 3; check += 1) {
      h.clock.advance(5 * 60_000);
      await h.reconcile();
    }
    const stored = await readAuthConfig(h);
    expect(stored.status?.rollout?.effectiveMode).toBe('warn');
    expect(stored.status?.rollout?.history.at(-1)).toMatchObject({
      from: 'enforce',
      to: 'warn',
      reason: 'FallbackToWarn',
    });
    expect(condition(stored.status, 'Degraded')).toMatchObject({ status: 'True', reason: 'FallbackToWarn' });
    expect(await eventReasons(h)).toContain('FallbackToWarn');
  });
});

describe('the apply benchmark', () => {
  it('times spec changes applied by the reconciler (for the runtime benchmark to call)', async () => {
    const namespace = await testNamespace(kc, 'reconcile-bench');
    const result = await benchmarkApply({ kubeConfig: kc, namespace, changes: 5 });
    expect(result.samplesMs).toHaveLength(5);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.p50Ms);
    // The operator's only: a controller-manager puts a kube-root-ca.crt ConfigMap in every namespace.
    const list = await core.listNamespacedConfigMap({
      namespace,
      labelSelector: `${LABELS.managedBy}=${MANAGED_BY}`,
    });
    expect(list.items).toHaveLength(5); // 6 configurations, the last 5 kept
  });
});

describe('faults', () => {
  // Fault injection needs the fake server: skipped on a real cluster.
  it.skipIf(process.env.KUBECONFIG !== undefined)(
    'throws on a 409 and converges on the next reconcile',
    async () => {
      const fake = cluster.fake;
      if (!fake) return;
      const h = await setUp();
      await applyAuthConfig(h, minimalSpec);
      await h.reconcile();
      await applyAuthConfig(h, specWith({ env: [{ name: 'LOG_LEVEL', value: 'warn' }] }));

      fake.failNext(1, 409, { reason: 'Conflict', message: 'the object has been modified' });
      await expect(h.reconcile()).rejects.toThrow();

      await h.reconcile();
      const stored = await readAuthConfig(h);
      const target = await readDeployment(h);
      expect(condition(stored.status, 'Ready')).toMatchObject({ status: 'True', observedGeneration: 2 });
      expect(target.spec?.template.metadata?.annotations?.[ANNOTATIONS.configHash]).toBe(
        stored.status?.appliedHash,
      );
      const current = (await configMaps(h)).find(
        (item) => item.metadata?.name === referencedConfigMap(target),
      );
      expect(current?.data?.LOG_LEVEL).toBe('warn');

      // A 409 on the status write itself (a status-only change: the rollback annotation while disabled).
      await applyAuthConfig(h, specWith({ env: [{ name: 'LOG_LEVEL', value: 'warn' }] }), {
        [ANNOTATIONS.rollback]: 'true',
      });
      fake.clearRequests();
      fake.failNext(1, 409, { reason: 'Conflict' });
      await expect(h.reconcile()).rejects.toThrow();
      expect(fake.requests.filter((request) => request.method !== 'GET')).toEqual([
        expect.objectContaining({ method: 'PUT', status: 409 }),
      ]);
      expect(fake.requests.at(-1)?.path).toMatch(/\/authconfigs\/gateway\/status$/);
      await h.reconcile();
      expect(condition((await readAuthConfig(h)).status, 'Promotable')).toMatchObject({
        reason: 'RollbackRequested',
      });
    },
  );
});
