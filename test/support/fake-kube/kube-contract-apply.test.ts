/**
 * Server-side apply as a real API server does it, stated once and checked against the fake (CI) and against a
 * real cluster when KUBECONFIG is set (test/support/fake-kube/README.md, "Server-side apply"): managedFields per
 * manager and operation, lists merged by their keys, 409 conflicts between managers and `force`, shared
 * ownership of equal values, and fields removed only when no manager owns them any more.
 */
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestNamespace,
  deleteNamespace,
  kubeRequest,
  startTestCluster,
  type KubeObject,
  type TestCluster,
} from './index.ts';
import { appliedAt, applyAt, fieldsBelow, managedEntry } from './apply-requests.ts';

let cluster: TestCluster;
let namespace: string;

const GATEWAY = 'k:{"name":"gateway"}';
const deployments = () => `/apis/apps/v1/namespaces/${namespace}/deployments`;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await createTestNamespace(cluster.kc, 'contract-apply');
});

afterAll(async () => {
  if (namespace) await deleteNamespace(cluster.kc, namespace);
  await cluster?.close();
});

type Json = Record<string, unknown>;

interface Deployment extends KubeObject {
  spec: { template: { metadata?: { annotations?: Record<string, string> }; spec: { containers: Json[] } } };
}

/** A whole Deployment as an installer applies it: one gateway container. */
function installed(name: string, gateway: Json): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: 'gateway', ...gateway }] } },
    },
  };
}

/** A partial configuration, as a controller applies only its own fields of the gateway container. */
function partial(name: string, gateway: Json, annotations?: Record<string, string>): Json {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      template: {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: { containers: [{ name: 'gateway', ...gateway }] },
      },
    },
  };
}

const apply = (name: string, body: Json, manager: string, force = false) =>
  applyAt(cluster.kc, `${deployments()}/${name}`, body, manager, force);
const applied = (name: string, body: Json, manager: string, force = false) =>
  appliedAt<Deployment>(cluster.kc, `${deployments()}/${name}`, body, manager, force);
const entry = managedEntry;

/** The gateway container's fields in a manager's fieldsV1. */
const gatewayFields = (object: KubeObject, manager: string, operation = 'Apply') =>
  fieldsBelow(object, manager, ['f:spec', 'f:template', 'f:spec', 'f:containers', GATEWAY], operation);

function gateway(object: Deployment): Json {
  const found = object.spec.template.spec.containers.find((container) => container.name === 'gateway');
  if (!found) throw new Error('no gateway container');
  return found;
}

describe('managedFields', () => {
  it('records an apply per manager with operation Apply and the fields of its configuration', async () => {
    const object = await applied('shape', installed('shape', { image: 'gatehouse:1' }), 'installer');
    const own = entry(object, 'installer', 'Apply');
    expect(own).toMatchObject({ apiVersion: 'apps/v1', fieldsType: 'FieldsV1' });
    expect(own?.subresource).toBeUndefined();
    expect(Date.parse(own?.time ?? '')).not.toBeNaN();
    // The same configuration again changes nothing, its time included: the same resourceVersion.
    const again = await applied('shape', installed('shape', { image: 'gatehouse:1' }), 'installer');
    expect(again.metadata.resourceVersion).toBe(object.metadata.resourceVersion);
    expect(again.metadata.managedFields).toEqual(object.metadata.managedFields);
    // Fields of the configuration only: the selector whole (atomic), items by key with their `.` marker,
    // maps without one; never metadata.name.
    expect(own?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:containers': { [GATEWAY]: { '.': {}, 'f:image': {}, 'f:name': {} } } },
        },
      },
    });
  });

  it('records a create and an update-style write as operation Update of their field manager', async () => {
    const path = `/api/v1/namespaces/${namespace}/configmaps`;
    const body = { metadata: { name: 'updated', labels: { a: '1' } }, data: { key: 'v' } };
    const created = await kubeRequest(cluster.kc, 'POST', `${path}?fieldManager=creator`, body);
    expect(created.status).toBe(201);
    expect(entry(created.body as KubeObject, 'creator', 'Update')?.fieldsV1).toEqual({
      'f:data': { '.': {}, 'f:key': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } },
    });
    // Without ?fieldManager= the manager is the user agent's product (the client's: kubernetes-client-javascript).
    const core = cluster.kc.makeApiClient(CoreV1Api);
    const patched = await core.patchNamespacedConfigMap(
      { name: 'updated', namespace, body: { data: { more: 'w' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.managedFields).toContainEqual(
      expect.objectContaining({
        manager: 'kubernetes-client-javascript',
        operation: 'Update',
        fieldsV1: { 'f:data': { 'f:more': {} } },
      }),
    );
  });
});

describe('lists merged by key', () => {
  it('merges containers and env by name, ports by containerPort and protocol, volumeMounts by mountPath; envFrom is atomic', async () => {
    await applied(
      'keyed',
      installed('keyed', {
        image: 'gatehouse:1',
        env: [{ name: 'NODE_OPTIONS', value: '--x' }],
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      }),
      'installer',
    );
    const controller = {
      envFrom: [{ configMapRef: { name: 'env-1' } }],
      env: [{ name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      ports: [{ containerPort: 8080, protocol: 'UDP' }],
    };
    await applied('keyed', partial('keyed', controller), 'controller');
    const object = await applied(
      'keyed',
      partial('keyed', { ...controller, envFrom: [{ configMapRef: { name: 'env-2' } }] }),
      'controller',
    );
    expect(gateway(object)).toMatchObject({
      image: 'gatehouse:1',
      envFrom: [{ configMapRef: { name: 'env-2' } }], // replaced whole, not merged
      env: [
        { name: 'NODE_OPTIONS', value: '--x' },
        { name: 'AUTH_SECRET', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
      ports: [
        { containerPort: 8080, protocol: 'TCP' },
        { containerPort: 8080, protocol: 'UDP' },
      ],
      volumeMounts: [{ name: 'data', mountPath: '/data' }],
    });
    expect(gatewayFields(object, 'controller')).toEqual({
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
      'f:ports': {
        'k:{"containerPort":8080,"protocol":"UDP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} },
      },
    });
  });
});

describe('conflicts', () => {
  it('refuses an apply changing a field another manager updated: 409 Conflict naming the field and the manager', async () => {
    const create = await kubeRequest(
      cluster.kc,
      'POST',
      `${deployments()}?fieldManager=helm`,
      installed('taken', { image: 'gatehouse:1' }),
    );
    expect(create.status).toBe(201);
    const refused = await apply('taken', partial('taken', { image: 'gatehouse:2' }), 'operator');
    expect(refused.status).toBe(409);
    const field = '.spec.template.spec.containers[name="gateway"].image';
    expect(refused.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Conflict',
      code: 409,
      message: `Apply failed with 1 conflict: conflict with "helm" using apps/v1: ${field}`,
      details: {
        causes: [{ type: 'FieldManagerConflict', message: 'conflict with "helm" using apps/v1', field }],
      },
    });
  });

  it('names an applier without its apiVersion, and lists several conflicts', async () => {
    await applied('applier', installed('applier', { image: 'gatehouse:1', args: ['--a'] }), 'helm');
    const one = await apply('applier', partial('applier', { image: 'gatehouse:2' }), 'operator');
    expect(one.status).toBe(409);
    expect((one.body as { message: string }).message).toBe(
      'Apply failed with 1 conflict: conflict with "helm": .spec.template.spec.containers[name="gateway"].image',
    );
    const two = await apply(
      'applier',
      partial('applier', { image: 'gatehouse:2', args: ['--b'] }),
      'operator',
    );
    expect((two.body as { message: string }).message).toBe(
      'Apply failed with 2 conflicts: conflicts with "helm":\n' +
        '- .spec.template.spec.containers[name="gateway"].args\n' +
        '- .spec.template.spec.containers[name="gateway"].image',
    );
  });

  it('with force=true takes the field: the other manager no longer owns it', async () => {
    await applied('forced', installed('forced', { image: 'gatehouse:1' }), 'helm');
    const object = await applied('forced', partial('forced', { image: 'gatehouse:2' }), 'operator', true);
    expect(gateway(object).image).toBe('gatehouse:2');
    expect(gatewayFields(object, 'operator')).toHaveProperty('f:image');
    expect(gatewayFields(object, 'helm')).not.toHaveProperty('f:image');
    expect(gatewayFields(object, 'helm')).toHaveProperty('f:name');
  });

  it('lets update-style writes take fields without conflict; the applier then conflicts with the updater', async () => {
    await applied('updated', installed('updated', { image: 'gatehouse:1' }), 'helm');
    const patch = [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'gatehouse:9' }];
    const path = `${deployments()}/updated?fieldManager=hand`;
    const patched = await kubeRequest(cluster.kc, 'PATCH', path, patch, 'application/json-patch+json');
    expect(patched.status).toBe(200);
    expect(gatewayFields(patched.body as KubeObject, 'hand', 'Update')).toEqual({ 'f:image': {} });
    expect(gatewayFields(patched.body as KubeObject, 'helm')).not.toHaveProperty('f:image');
    const again = await apply('updated', installed('updated', { image: 'gatehouse:2' }), 'helm');
    expect(again.status).toBe(409);
    expect((again.body as { message: string }).message).toContain('conflict with "hand" using apps/v1');
  });
});

describe('shared ownership', () => {
  it('shares a field applied with the same value; a later change by either conflicts with the other', async () => {
    await applied('shared', installed('shared', { image: 'gatehouse:1' }), 'helm');
    const object = await applied('shared', partial('shared', { image: 'gatehouse:1' }), 'operator');
    expect(gatewayFields(object, 'helm')).toHaveProperty('f:image');
    expect(gatewayFields(object, 'operator')).toHaveProperty('f:image');
    const upgrade = await apply('shared', installed('shared', { image: 'gatehouse:2' }), 'helm');
    expect(upgrade.status).toBe(409);
    expect((upgrade.body as { message: string }).message).toContain('conflict with "operator"');
  });
});

describe('fields a manager stops applying', () => {
  it('are removed when no other manager owns them, kept while another does', async () => {
    const env = (...names: string[]) => names.map((name) => ({ name, value: name.toLowerCase() }));
    await applied('pruned', installed('pruned', { image: 'gatehouse:1' }), 'helm');
    await applied('pruned', partial('pruned', { env: env('A', 'B') }, { a: '1', b: '2' }), 'operator');
    await applied('pruned', partial('pruned', { env: env('B') }, { b: '2' }), 'other');

    const first = await applied('pruned', partial('pruned', { env: env('A') }, { a: '1' }), 'operator');
    expect(first.spec.template.metadata?.annotations).toEqual({ a: '1', b: '2' });
    expect(gateway(first).env).toEqual(env('A', 'B'));
    expect(gateway(first).image).toBe('gatehouse:1');

    const second = await applied('pruned', partial('pruned', {}, { c: '3' }), 'other');
    expect(second.spec.template.metadata?.annotations).toEqual({ a: '1', c: '3' });
    expect(gateway(second).env).toEqual(env('A'));
  });
});
