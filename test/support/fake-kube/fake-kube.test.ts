/**
 * The fake Kubernetes API server (test/support/fake-kube) against the real @kubernetes/client-node 2.x: the
 * semantics the operator's end-to-end tests rely on, and the faults they inject (docs/adr/0007-operator.md,
 * "Requirements", "Tests and targets").
 */
import {
  ApiException,
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubeConfig,
  type V1Deployment,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../eventually.ts';
import {
  FakeKube,
  installCrd,
  isEstablished,
  kubeRequest,
  readCrdFile,
  startTestCluster,
  type KubeObject,
} from './index.ts';

const AUTHCONFIG = { group: 'gatehouse.dev', version: 'v1alpha1', plural: 'authconfigs', kind: 'AuthConfig' };
const namespace = 'default';

let fake: FakeKube;
let kc: KubeConfig;
let core: CoreV1Api;
let apps: AppsV1Api;
let custom: CustomObjectsApi;
let coordination: CoordinationV1Api;

beforeAll(async () => {
  fake = await FakeKube.start({ customResource: AUTHCONFIG });
  kc = fake.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
  coordination = kc.makeApiClient(CoordinationV1Api);
});

afterAll(async () => {
  await fake.close();
});

/** The HTTP status of a rejected client call. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
  throw new Error('expected the call to fail');
}

interface WatchEvent {
  type: string;
  object: KubeObject;
}

/** A client Watch whose events tests await one at a time (no sleeps). */
async function openWatch(path: string, query: Record<string, string>) {
  const events: WatchEvent[] = [];
  const waiters: Array<() => void> = [];
  let ended!: (error: unknown) => void;
  const done = new Promise<unknown>((resolve) => (ended = resolve));
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: KubeObject) => {
      events.push({ type, object });
      for (const wake of waiters.splice(0)) wake();
    },
    (error: unknown) => ended(error ?? null),
  );
  let read = 0;
  return {
    done,
    abort: () => controller.abort(),
    async next(): Promise<WatchEvent> {
      while (read >= events.length) await new Promise<void>((resolve) => waiters.push(resolve));
      return events[read++] as WatchEvent;
    },
  };
}

function deployment(name: string, image: string): V1Deployment {
  return {
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'gateway', image }] },
      },
    },
  };
}

describe('ConfigMaps', () => {
  it('creates, reads and replaces with resourceVersion, uid and 409 on a stale write', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'settings', labels: { tier: 'gw' } }, data: { A: '1' } },
    });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const firstVersion = created.metadata?.resourceVersion ?? '';
    expect(Number(firstVersion)).toBeGreaterThan(0);

    expect(
      await statusOf(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'settings' } } })),
    ).toBe(409);

    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace });
    expect(read.data).toEqual({ A: '1' });

    const replaced = await core.replaceNamespacedConfigMap({
      name: 'settings',
      namespace,
      body: { ...read, data: { A: '2' } },
    });
    expect(Number(replaced.metadata?.resourceVersion)).toBeGreaterThan(Number(firstVersion));
    expect(replaced.metadata?.uid).toBe(created.metadata?.uid);

    // The same replace again carries the old resourceVersion: a lost update the server refuses.
    expect(
      await statusOf(
        core.replaceNamespacedConfigMap({ name: 'settings', namespace, body: { ...read, data: { A: '3' } } }),
      ),
    ).toBe(409);
    expect(await statusOf(core.readNamespacedConfigMap({ name: 'missing', namespace }))).toBe(404);
  });

  it('lists with a resourceVersion and filters by label selector', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'other', labels: { tier: 'db' } } },
    });
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector: 'tier=gw' });
    expect(list.items.map((c) => c.metadata?.name)).toEqual(['settings']);
    expect(Number(list.metadata?.resourceVersion)).toBeGreaterThanOrEqual(
      Number(list.items[0]?.metadata?.resourceVersion),
    );
    const notGw = await core.listNamespacedConfigMap({ namespace, labelSelector: 'tier!=gw' });
    expect(notGw.items.map((c) => c.metadata?.name)).toEqual(['other']);
  });

  it('refuses data changes to an immutable ConfigMap with 422 but allows label changes', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'frozen' }, data: { K: 'v' }, immutable: true },
    });
    const current = await core.readNamespacedConfigMap({ name: 'frozen', namespace });
    expect(
      await statusOf(
        core.replaceNamespacedConfigMap({
          name: 'frozen',
          namespace,
          body: { ...current, data: { K: 'w' } },
        }),
      ),
    ).toBe(422);
    const relabelled = await core.patchNamespacedConfigMap(
      { name: 'frozen', namespace, body: { metadata: { labels: { kept: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(relabelled.metadata?.labels).toEqual({ kept: 'yes' });
    expect(relabelled.data).toEqual({ K: 'v' });
  });
});

describe('Deployments', () => {
  it('patches the pod template by merge patch, bumping generation but not on a no-op', async () => {
    const created = await apps.createNamespacedDeployment({
      namespace,
      body: deployment('gw', 'gatehouse:1'),
    });
    expect(created.metadata?.generation).toBe(1);
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const body = {
      spec: { template: { metadata: { annotations: { 'gatehouse.dev/config-hash': 'abc' } } } },
    };
    const patched = await apps.patchNamespacedDeployment({ name: 'gw', namespace, body }, merge);
    expect(patched.spec?.template.metadata?.annotations).toEqual({ 'gatehouse.dev/config-hash': 'abc' });
    expect(patched.spec?.template.spec?.containers[0]?.image).toBe('gatehouse:1');
    expect(patched.metadata?.generation).toBe(2);
    expect(fake.requests.at(-1)?.contentType).toBe('application/merge-patch+json');

    // The same patch again changes nothing: same resourceVersion, same generation.
    const again = await apps.patchNamespacedDeployment({ name: 'gw', namespace, body }, merge);
    expect(again.metadata?.resourceVersion).toBe(patched.metadata?.resourceVersion);
    expect(again.metadata?.generation).toBe(2);
  });

  it('applies server-side with a field manager: creates, merges, prunes what the manager stopped applying', async () => {
    const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const desired = (env: Array<{ name: string; value: string }>, annotations: Record<string, string>) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'applied', annotations },
      spec: { template: { spec: { containers: [{ name: 'gateway', image: 'gatehouse:2', env }] } } },
    });
    expect(
      await statusOf(
        apps.patchNamespacedDeployment({ name: 'applied', namespace, body: desired([], {}) }, apply),
      ),
    ).toBe(422); // fieldManager is required for apply

    const created = await apps.patchNamespacedDeployment(
      {
        name: 'applied',
        namespace,
        fieldManager: 'gatehouse-operator',
        body: desired([{ name: 'A', value: '1' }], { a: '1', b: '2' }),
      },
      apply,
    );
    expect(fake.requests.at(-1)).toMatchObject({ status: 201, contentType: 'application/apply-patch+yaml' });
    expect(fake.requests.at(-1)?.query.fieldManager).toBe('gatehouse-operator');
    expect(created.metadata?.generation).toBe(1);

    const updated = await apps.patchNamespacedDeployment(
      {
        name: 'applied',
        namespace,
        fieldManager: 'gatehouse-operator',
        force: true,
        body: desired([{ name: 'A', value: '2' }], { a: '1' }),
      },
      apply,
    );
    expect(updated.spec?.template.spec?.containers[0]?.env).toEqual([{ name: 'A', value: '2' }]);
    expect(updated.metadata?.annotations).toEqual({ a: '1' });
    expect(updated.metadata?.generation).toBe(2);
    expect(updated.metadata?.uid).toBe(created.metadata?.uid);
  });

  it('accepts a JSON patch, the client default content type', async () => {
    const patched = await apps.patchNamespacedDeployment({
      name: 'gw',
      namespace,
      body: [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'gatehouse:3' }],
    });
    expect(fake.requests.at(-1)?.contentType).toBe('application/json-patch+json');
    expect(patched.spec?.template.spec?.containers[0]?.image).toBe('gatehouse:3');
  });

  it('keeps status out of spec writes and spec out of status writes', async () => {
    const current = await apps.readNamespacedDeployment({ name: 'gw', namespace });
    const withStatus = await apps.replaceNamespacedDeploymentStatus({
      name: 'gw',
      namespace,
      body: {
        ...current,
        spec: { ...current.spec!, replicas: 5 },
        status: { observedGeneration: 2, readyReplicas: 1 },
      },
    });
    expect(withStatus.status).toEqual({ observedGeneration: 2, readyReplicas: 1 });
    expect(withStatus.spec?.replicas).toBe(1);
    expect(withStatus.metadata?.generation).toBe(current.metadata?.generation);

    const specWrite = await apps.replaceNamespacedDeployment({
      name: 'gw',
      namespace,
      body: { ...withStatus, spec: { ...withStatus.spec!, replicas: 2 }, status: { readyReplicas: 9 } },
    });
    expect(specWrite.spec?.replicas).toBe(2);
    expect(specWrite.status).toEqual({ observedGeneration: 2, readyReplicas: 1 });
    expect(specWrite.metadata?.generation).toBe((current.metadata?.generation ?? 0) + 1);
  });
});

describe('custom resource (AuthConfig)', () => {
  const ref = { group: AUTHCONFIG.group, version: AUTHCONFIG.version, plural: AUTHCONFIG.plural, namespace };
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  it('creates, patches status without bumping generation, and bumps it on a spec change', async () => {
    const created = (await custom.createNamespacedCustomObject({
      ...ref,
      body: {
        apiVersion: 'gatehouse.dev/v1alpha1',
        kind: 'AuthConfig',
        metadata: {
          name: 'main',
          ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'x', uid: 'u-1' }],
        },
        spec: { target: 'gw', apiAuth: { mode: 'warn' } },
        status: { ignored: true },
      },
    })) as KubeObject;
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined();
    expect(created.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Namespace', name: 'x', uid: 'u-1' },
    ]);

    const statusPatched = (await custom.patchNamespacedCustomObjectStatus(
      {
        ...ref,
        name: 'main',
        body: { status: { observedGeneration: 1, phase: 'Warn' }, spec: { target: 'nope' } },
      },
      merge,
    )) as KubeObject;
    expect(statusPatched.status).toEqual({ observedGeneration: 1, phase: 'Warn' });
    expect(statusPatched.spec).toEqual({ target: 'gw', apiAuth: { mode: 'warn' } });
    expect(statusPatched.metadata.generation).toBe(1);
    expect(Number(statusPatched.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );

    const specPatched = (await custom.patchNamespacedCustomObject(
      {
        ...ref,
        name: 'main',
        body: { spec: { apiAuth: { mode: 'enforce' } }, status: { phase: 'ignored' } },
      },
      merge,
    )) as KubeObject;
    expect(specPatched.metadata.generation).toBe(2);
    expect(specPatched.status).toEqual({ observedGeneration: 1, phase: 'Warn' });

    const read = (await custom.getNamespacedCustomObject({ ...ref, name: 'main' })) as KubeObject;
    expect(read.spec).toEqual({ target: 'gw', apiAuth: { mode: 'enforce' } });
  });

  it('refuses an unconditional replace of a custom object (422) and a stale one (409)', async () => {
    const read = (await custom.getNamespacedCustomObject({ ...ref, name: 'main' })) as KubeObject;
    const { resourceVersion: _rv, ...metadata } = read.metadata;
    expect(
      await statusOf(
        custom.replaceNamespacedCustomObject({ ...ref, name: 'main', body: { ...read, metadata } }),
      ),
    ).toBe(422);
    await custom.replaceNamespacedCustomObject({
      ...ref,
      name: 'main',
      body: { ...read, spec: { target: 'gw2' } },
    });
    expect(await statusOf(custom.replaceNamespacedCustomObject({ ...ref, name: 'main', body: read }))).toBe(
      409,
    );
  });
});

describe('Leases', () => {
  it('creates and replaces a Lease; a stale resourceVersion is a 409', async () => {
    const spec = {
      holderIdentity: 'operator-a',
      leaseDurationSeconds: 15,
      acquireTime: new Date(),
      renewTime: new Date(),
    };
    const created = await coordination.createNamespacedLease({
      namespace,
      body: { metadata: { name: 'gatehouse-operator' }, spec },
    });
    const renewed = await coordination.replaceNamespacedLease({
      name: 'gatehouse-operator',
      namespace,
      body: { ...created, spec: { ...spec, renewTime: new Date(Date.now() + 1000) } },
    });
    expect(renewed.spec?.holderIdentity).toBe('operator-a');
    // A second replica that read the Lease before the renewal loses the race.
    expect(
      await statusOf(
        coordination.replaceNamespacedLease({
          name: 'gatehouse-operator',
          namespace,
          body: { ...created, spec: { ...spec, holderIdentity: 'operator-b' } },
        }),
      ),
    ).toBe(409);
  });
});

describe('watch', () => {
  it('streams ADDED and MODIFIED from a resourceVersion, then 410 Gone on expiry and on resuming too far back', async () => {
    const list = await core.listNamespacedConfigMap({ namespace });
    const from = list.metadata?.resourceVersion ?? '';
    const watch = await openWatch(`/api/v1/namespaces/${namespace}/configmaps`, { resourceVersion: from });

    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'watched' }, data: { v: '1' } },
    });
    const added = await watch.next();
    expect(added.type).toBe('ADDED');
    expect(added.object.metadata.name).toBe('watched');
    await core.patchNamespacedConfigMap(
      { name: 'watched', namespace, body: { data: { v: '2' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const modified = await watch.next();
    expect(modified.type).toBe('MODIFIED');
    expect(modified.object.data).toEqual({ v: '2' });
    await core.deleteNamespacedConfigMap({ name: 'watched', namespace });
    expect((await watch.next()).type).toBe('DELETED');

    expect(fake.expireWatches()).toBe(1);
    const gone = await watch.next();
    expect(gone.type).toBe('ERROR');
    expect(gone.object).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      code: 410,
      reason: 'Expired',
    });
    expect(await watch.done).toBeNull();

    // Resuming from the old resourceVersion is refused as well: the client must relist.
    const resumed = await openWatch(`/api/v1/namespaces/${namespace}/configmaps`, { resourceVersion: from });
    expect((await resumed.next()).object).toMatchObject({ code: 410 });
    await resumed.done;
  });

  it('replays the current state without a resourceVersion and honours label selectors', async () => {
    const watch = await openWatch(`/api/v1/namespaces/${namespace}/configmaps`, { labelSelector: 'tier=gw' });
    const first = await watch.next();
    expect(first).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'settings' } } });
    await core.patchNamespacedConfigMap(
      { name: 'settings', namespace, body: { metadata: { labels: { tier: 'db' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    // Leaving the selector reads as a deletion, as from the real watch cache.
    expect((await watch.next()).type).toBe('DELETED');
    watch.abort();
    await watch.done;
  });

  it('stalls an open watch: connected, silent', async () => {
    const watch = await openWatch(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      resourceVersion: String((await apps.listNamespacedDeployment({ namespace })).metadata?.resourceVersion),
    });
    expect(fake.stallWatches()).toBe(1);
    const control = await openWatch(`/apis/apps/v1/namespaces/${namespace}/deployments`, {
      resourceVersion: String((await apps.listNamespacedDeployment({ namespace })).metadata?.resourceVersion),
    });
    await apps.patchNamespacedDeployment(
      { name: 'gw', namespace, body: { spec: { replicas: 3 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect((await control.next()).type).toBe('MODIFIED');
    // The control watch saw the change, so the stalled one was sent it too if it ever would be.
    expect(fake.openWatches).toBe(2);
    let stalledEvents = 0;
    void watch.next().then(() => (stalledEvents += 1));
    await apps.readNamespacedDeployment({ name: 'gw', namespace });
    expect(stalledEvents).toBe(0);
    watch.abort();
    control.abort();
    await Promise.all([watch.done, control.done]);
  });
});

describe('faults', () => {
  it('fails the next writes with the injected status and then recovers', async () => {
    fake.failNext(2, 500);
    const body = { metadata: { name: 'after-faults' } };
    const failure = core.createNamespacedConfigMap({ namespace, body });
    await expect(failure).rejects.toBeInstanceOf(ApiException);
    await expect(failure).rejects.toMatchObject({ code: 500 });
    expect(await statusOf(core.createNamespacedConfigMap({ namespace, body }))).toBe(500);
    // Reads are not hit by a write fault.
    await core.listNamespacedConfigMap({ namespace });
    const created = await core.createNamespacedConfigMap({ namespace, body });
    expect(created.metadata?.name).toBe('after-faults');

    fake.failNext(1, 409, { reason: 'Conflict' });
    expect(await statusOf(core.deleteNamespacedConfigMap({ name: 'after-faults', namespace }))).toBe(409);
    await core.deleteNamespacedConfigMap({ name: 'after-faults', namespace });
    expect(fake.requests.filter((r) => r.status === 500)).toHaveLength(2);
  });

  it('fails a watch request when reads are targeted', async () => {
    fake.failNext(1, 500, { on: 'reads' });
    const watch = await openWatch(`/api/v1/namespaces/${namespace}/configmaps`, {});
    expect(await watch.done).toMatchObject({ statusCode: 500 });
  });

  it('answers errors with Status objects and refuses a wrong token', async () => {
    const response = await fetch(`${fake.url}/api/v1/namespaces/${namespace}/configmaps/nope`, {
      headers: { authorization: `Bearer ${fake.token}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'configmaps' },
      code: 404,
    });
    const anonymous = await fetch(`${fake.url}/api/v1/namespaces/${namespace}/configmaps`);
    expect(anonymous.status).toBe(401);
  });
});

describe('namespaces', () => {
  it('has the namespaces of a fresh cluster and serves Namespace objects (create, get, list)', async () => {
    const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));
    const created = await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    expect(created.status?.phase).toBe('Active');
    expect(created.spec?.finalizers).toEqual(['kubernetes']);
    expect(created.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': 'team-a' });
    expect(created.metadata?.namespace).toBeUndefined();
    expect((await core.readNamespace({ name: 'team-a' })).metadata?.uid).toBe(created.metadata?.uid);
    expect(await statusOf(core.createNamespace({ body: { metadata: { name: 'team-a' } } }))).toBe(409);
    expect(await statusOf(core.createNamespace({ body: { metadata: { name: 'Team_B' } } }))).toBe(422);
  });

  it('refuses a create or an apply in a namespace that does not exist with 404 namespaces "x" not found', async () => {
    const response = await fetch(`${fake.url}/api/v1/namespaces/nowhere/configmaps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'x' } }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "nowhere" not found',
      reason: 'NotFound',
      details: { name: 'nowhere', kind: 'namespaces' },
      code: 404,
    });
    expect(
      await statusOf(
        apps.patchNamespacedDeployment(
          { name: 'gw', namespace: 'nowhere', fieldManager: 'test', body: deployment('gw', 'gatehouse:1') },
          setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
        ),
      ),
    ).toBe(404);
    // A read of an object in a missing namespace is the object's own 404.
    await expect(core.readNamespacedConfigMap({ name: 'x', namespace: 'nowhere' })).rejects.toMatchObject({
      code: 404,
      body: expect.stringContaining('configmaps \\"x\\" not found') as unknown,
    });
  });

  it('deletes a namespace in two steps: Terminating (creates refused with 403), then every object in it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'a' } } });
    await apps.createNamespacedDeployment({ namespace: 'doomed', body: deployment('gw', 'gatehouse:1') });
    const from =
      (await core.listNamespacedConfigMap({ namespace: 'doomed' })).metadata?.resourceVersion ?? '';
    const watch = await openWatch('/api/v1/namespaces/doomed/configmaps', { resourceVersion: from });
    const namespaces = await openWatch('/api/v1/namespaces', { resourceVersion: from });

    // The client types the answer as a Status; the server sends the Namespace, now Terminating.
    const response = await fetch(`${fake.url}/api/v1/namespaces/doomed`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${fake.token}` },
    });
    expect(response.status).toBe(200);
    const terminating = (await response.json()) as KubeObject;
    expect(terminating).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(await namespaces.next()).toMatchObject({
      type: 'MODIFIED',
      object: { status: { phase: 'Terminating' } },
    });

    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'a' } } });
    expect(await namespaces.next()).toMatchObject({
      type: 'DELETED',
      object: { metadata: { name: 'doomed' } },
    });
    expect(await statusOf(apps.readNamespacedDeployment({ name: 'gw', namespace: 'doomed' }))).toBe(404);
    expect(await statusOf(core.readNamespace({ name: 'doomed' }))).toBe(404);
    watch.abort();
    namespaces.abort();
    await Promise.all([watch.done, namespaces.done]);
  });

  it('refuses creates in a terminating namespace (403) and a second delete (409); default cannot be deleted', async () => {
    await core.createNamespace({ body: { metadata: { name: 'leaving' } } });
    fake.holdNamespaces();
    await core.deleteNamespace({ name: 'leaving' });
    const late = core.createNamespacedConfigMap({
      namespace: 'leaving',
      body: { metadata: { name: 'late' } },
    });
    await expect(late).rejects.toMatchObject({ code: 403 });
    expect(
      JSON.parse(String(((await late.catch((e: unknown) => e)) as ApiException<string>).body)),
    ).toMatchObject({
      message:
        'configmaps "late" is forbidden: unable to create new content in namespace leaving because it is being terminated',
      reason: 'Forbidden',
      details: { causes: [{ reason: 'NamespaceTerminating', field: 'metadata.namespace' }] },
    });
    expect(await statusOf(core.deleteNamespace({ name: 'leaving' }))).toBe(409);
    fake.releaseNamespaces();
    await eventually('the namespace is gone', 5000, async () =>
      (await statusOf(core.readNamespace({ name: 'leaving' })).catch(() => 200)) === 404 ? true : undefined,
    );
    expect(await statusOf(core.deleteNamespace({ name: 'default' }))).toBe(403);
  });
});

describe('discovery', () => {
  it('lets the generic KubernetesObjectApi resolve kinds, including the custom resource', async () => {
    const client = KubernetesObjectApi.makeApiClient(kc);
    const configMap = await client.read({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace },
    });
    expect(configMap.metadata?.name).toBe('settings');
    const authConfig = await client.read({
      apiVersion: 'gatehouse.dev/v1alpha1',
      kind: 'AuthConfig',
      metadata: { name: 'main', namespace },
    });
    expect(authConfig.metadata?.uid).toBeDefined();
  });
});

/** A small CRD of the given scope, with a status subresource and a typed schema. */
function widgetCrd(scope: 'Namespaced' | 'Cluster', versions = ['v1']): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: scope === 'Namespaced' ? 'widgets.example.com' : 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope,
      names:
        scope === 'Namespaced'
          ? { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'] }
          : { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: versions.map((name, index) => ({
        name,
        served: true,
        storage: index === 0,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer' } } },
              status: { type: 'object', properties: { ready: { type: 'boolean' } } },
            },
          },
        },
      })),
    },
  };
}

describe('CustomResourceDefinitions', () => {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

  it('installs a CRD through the API: Established with accepted names, its type served and discoverable', async () => {
    const created = await kubeRequest(kc, 'POST', crds, widgetCrd('Namespaced'));
    expect(created.status).toBe(201);
    expect((created.body as KubeObject).status).toEqual({
      acceptedNames: { kind: '', plural: '' },
      storedVersions: ['v1'],
    });
    const installed = await installCrd(kc, widgetCrd('Namespaced'));
    expect(isEstablished(installed)).toBe(true);
    expect(installed.status).toMatchObject({
      acceptedNames: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts' },
        { type: 'Established', status: 'True', reason: 'InitialNamesAccepted' },
      ],
    });
    const groups = (await kubeRequest(kc, 'GET', '/apis')).body as { groups: Array<{ name: string }> };
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(['apps', 'apiextensions.k8s.io', 'example.com', 'gatehouse.dev']),
    );
    const resources = (await kubeRequest(kc, 'GET', '/apis/example.com/v1')).body as {
      resources: Array<{ name: string; shortNames?: string[] }>;
    };
    expect(resources.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'widgets', shortNames: ['wd'] }),
        expect.objectContaining({ name: 'widgets/status' }),
      ]),
    );
    const widget = (await custom.createNamespacedCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'widgets',
      namespace,
      body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 1 } },
    })) as KubeObject;
    expect(widget.metadata.generation).toBe(1);
  });

  it('replaces an installed CRD (a second version served), and serves cluster-scoped types', async () => {
    const replaced = await installCrd(kc, widgetCrd('Namespaced', ['v1', 'v2']));
    expect(replaced.metadata.generation).toBe(2);
    expect(
      (await kubeRequest(kc, 'GET', `/apis/example.com/v2/namespaces/${namespace}/widgets/w`)).status,
    ).toBe(200);
    await installCrd(kc, widgetCrd('Cluster'));
    const gadget = await kubeRequest(kc, 'POST', '/apis/example.com/v1/gadgets', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'g', namespace: 'ignored' },
    });
    expect(gadget.status).toBe(201);
    expect((gadget.body as KubeObject).metadata.namespace).toBeUndefined();
    expect(
      (await kubeRequest(kc, 'GET', `/apis/example.com/v1/namespaces/${namespace}/gadgets`)).status,
    ).toBe(404);
  });

  it('installs one CRD from parallel suites: a replace that lost the race reads again and retries', async () => {
    await installCrd(kc, widgetCrd('Namespaced'));
    // Different contents, so each replace changes the CRD and the others' resourceVersion goes stale.
    const versions = [['v1'], ['v1', 'v2'], ['v1', 'v3'], ['v1', 'v4']];
    const installs = versions.map((served) => installCrd(kc, widgetCrd('Namespaced', served)));
    const installed = await Promise.all(installs);
    expect(installed.every(isEstablished)).toBe(true);
  });

  it('deletes a CRD: Terminating, then its objects (with watch events), its type and itself are gone', async () => {
    const path = `/apis/example.com/v1/namespaces/${namespace}/widgets`;
    const from = ((await kubeRequest(kc, 'GET', path)).body as KubeObject).metadata.resourceVersion ?? '';
    const watch = await openWatch(path, { resourceVersion: from });
    const deleted = await kubeRequest(kc, 'DELETE', `${crds}/widgets.example.com`);
    expect(deleted.status).toBe(200);
    expect((deleted.body as KubeObject).metadata).toMatchObject({
      deletionTimestamp: expect.any(String) as unknown,
      finalizers: ['customresourcecleanup.apiextensions.k8s.io'],
    });
    expect(await watch.next()).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'w' } } });
    await eventually('the CRD is gone', 5000, async () =>
      (await kubeRequest(kc, 'GET', `${crds}/widgets.example.com`)).status === 404 ? true : undefined,
    );
    expect((await kubeRequest(kc, 'GET', path)).status).toBe(404);
    await kubeRequest(kc, 'DELETE', `${crds}/gadgets.example.com`);
    await watch.done;
  });
});

/** A one-version CRD whose `spec` has the given schema. */
function crdWithSpec(spec: Record<string, unknown>, root: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'checks.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'checks', kind: 'Check' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec }, ...root } },
        },
      ],
    },
  };
}

interface StatusBody {
  message: string;
  reason: string;
  code: number;
  details: { causes: Array<{ reason: string; message: string; field: string }> };
}

async function refusal(crd: KubeObject): Promise<StatusBody> {
  const answer = await kubeRequest(
    kc,
    'POST',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    crd,
  );
  expect(answer.status).toBe(422);
  return answer.body as StatusBody;
}

describe('CRD validation (as the apiextensions server does it)', () => {
  const SPEC = 'spec.validation.openAPIV3Schema.properties[spec]';

  it('refuses the unguarded AuthConfig CRD with the real server message: each default {} fails its own rules', async () => {
    const [crd] = await readCrdFile('test/support/fake-kube/fixtures/authconfig-crd-unguarded.yaml');
    const status = await refusal(crd as KubeObject);
    expect(status).toMatchObject({ reason: 'Invalid', code: 422 });
    expect(status.message).toMatch(
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "authconfigs\.gatehouse\.dev" is invalid: \[/,
    );
    const rollout = `${SPEC}.properties[apiAuth].properties[rollout].default`;
    expect(status.message).toContain(
      `${rollout}: Invalid value: "object": no such key: analysisWindow evaluating rule: analysisWindow must be at least analysisInterval, or requests between checks go unseen`,
    );
    expect(status.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: `${SPEC}.properties[apiAuth].default`,
        message: expect.stringMatching(
          /^Invalid value: "object": no such key: mode evaluating rule: /,
        ) as unknown,
      },
      ...['minWarnSoak', 'analysisInterval', 'analysisWindow'].map((key) => ({
        reason: 'FieldValueInvalid',
        field: rollout,
        message: expect.stringMatching(
          new RegExp(`^Invalid value: "object": no such key: ${key} evaluating rule: `),
        ) as unknown,
      })),
    ]);
  });

  it('accepts a default {} under rules that guard the fields they read with has()', async () => {
    const crd = crdWithSpec({
      type: 'object',
      properties: {
        rollout: {
          type: 'object',
          default: {},
          'x-kubernetes-validations': [{ rule: "!has(self.mode) || self.mode != 'x'", message: 'no x' }],
          properties: { mode: { type: 'string', default: 'a' } },
        },
      },
    });
    expect(isEstablished(await installCrd(kc, crd))).toBe(true);
    await kubeRequest(
      kc,
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/checks.example.com',
    );
    await eventually('the CRD is gone', 5000, async () =>
      (
        await kubeRequest(
          kc,
          'GET',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/checks.example.com',
        )
      ).status === 404
        ? true
        : undefined,
    );
  });

  it('refuses a default that fails its own schema, and a rule that does not compile (undefined field)', async () => {
    const status = await refusal(
      crdWithSpec({
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.nope == 1' }],
        properties: { mode: { type: 'string', enum: ['a', 'b'], default: 'c' } },
      }),
    );
    expect(status.details.causes).toEqual(
      expect.arrayContaining([
        {
          reason: 'FieldValueInvalid',
          field: `${SPEC}.x-kubernetes-validations[0].rule`,
          message: expect.stringContaining('compilation failed: ERROR: <input>:1:') as unknown,
        },
        {
          reason: 'FieldValueNotSupported',
          field: `${SPEC}.properties[mode].default`,
          message: 'Unsupported value: "c": supported values: "a", "b"',
        },
      ]),
    );
    expect(status.message).toContain("undefined field 'nope'");
  });

  it('refuses a schema that is not structural', async () => {
    const status = await refusal(
      crdWithSpec(
        {
          type: 'object',
          properties: { untyped: {}, list: { type: 'array' } },
          additionalProperties: { type: 'string' },
        },
        {
          properties: {
            spec: { type: 'object' },
            metadata: { type: 'object', properties: { labels: { type: 'object' } } },
          },
        },
      ),
    );
    expect(status.details.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ]);
    const nested = await refusal(
      crdWithSpec({
        type: 'object',
        properties: { untyped: {}, list: { type: 'array' } },
        additionalProperties: { type: 'string' },
      }),
    );
    expect(nested.details.causes.map((c) => `${c.field}: ${c.message}`)).toEqual([
      `${SPEC}.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      `${SPEC}.properties[list].items: Required value: must be specified`,
      `${SPEC}.properties[untyped].type: Required value: must not be empty for specified object fields`,
    ]);
  });
});

describe('startTestCluster', () => {
  it('runs on the fake server when KUBECONFIG is unset', async () => {
    const cluster = await startTestCluster({}, {});
    try {
      expect(cluster.fake).toBeInstanceOf(FakeKube);
      const list = await cluster.kc.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace });
      expect(list.items).toEqual([]);
    } finally {
      await cluster.close();
    }
  });

  it('installs the CRDs it is given through the API before the suite runs', async () => {
    const cluster = await startTestCluster({ installCrds: [widgetCrd('Cluster')] }, {});
    try {
      const crd = await kubeRequest(
        cluster.kc,
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com',
      );
      expect(isEstablished(crd.body as KubeObject)).toBe(true);
      expect((await kubeRequest(cluster.kc, 'GET', '/apis/example.com/v1/gadgets')).status).toBe(200);
    } finally {
      await cluster.close();
    }
  });
});
