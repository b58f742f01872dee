/**
 * Server-side apply's lists as a real API server types them (test/support/fake-kube/README.md, "Server-side
 * apply"), checked against the fake (CI) and a real cluster when KUBECONFIG is set: an applied list with two
 * items of one key is refused (create and update accept it), and each list is keyed as its type and path say.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestNamespace,
  deleteNamespace,
  kubeRequest,
  startTestCluster,
  type KubeObject,
  type TestCluster,
} from './index.ts';
import { APPLY, appliedAt, applyAt, fieldsBelow, messageOf } from './apply-requests.ts';

let cluster: TestCluster;
let namespace: string;

const deployments = () => `/apis/apps/v1/namespaces/${namespace}/deployments`;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await createTestNamespace(cluster.kc, 'contract-lists');
});

afterAll(async () => {
  if (namespace) await deleteNamespace(cluster.kc, namespace);
  await cluster?.close();
});

type Json = Record<string, unknown>;

interface Deployment extends KubeObject {
  spec: { template: { spec: Json & { containers: Json[] } } };
}

/** A Deployment whose pod template has these containers and these other pod spec fields. */
function deployment(name: string, containers: Json[], podSpec: Json = {}): Json {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { ...podSpec, containers } },
    },
  };
}

/** A partial configuration: the gateway container and some pod spec fields only. */
function partial(name: string, podSpec: Json): Json {
  const spec = { containers: [{ name: 'gateway', image: 'gatehouse:1' }], ...podSpec };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { template: { spec } } };
}

const apply = (name: string, body: Json, manager: string) =>
  applyAt(cluster.kc, `${deployments()}/${name}`, body, manager);
const applied = (name: string, body: Json, manager: string) =>
  appliedAt<Deployment>(cluster.kc, `${deployments()}/${name}`, body, manager);

/** A manager's Apply fieldsV1 under the pod template's spec. */
const podSpecFields = (object: KubeObject, manager: string) =>
  fieldsBelow(object, manager, ['f:spec', 'f:template', 'f:spec']);

describe('an applied list with two items of one key', () => {
  it('is refused with 422 duplicate entries for key, containers, env and ports (a defaulted key) alike', async () => {
    const twice = deployment('twice', [
      { name: 'gateway', image: 'gatehouse:1' },
      { name: 'gateway', image: 'gatehouse:2' },
    ]);
    const containers = await apply('twice', twice, 'installer');
    expect(containers.status).toBe(422);
    expect(messageOf(containers)).toContain(
      '.spec.template.spec.containers: duplicate entries for key [name="gateway"]',
    );
    const env = [
      { name: 'A', value: '1' },
      { name: 'A', value: '2' },
    ];
    const envRefused = await apply(
      'twice',
      deployment('twice', [{ name: 'gateway', image: 'g', env }]),
      'installer',
    );
    expect(envRefused.status).toBe(422);
    expect(messageOf(envRefused)).toContain(
      '.spec.template.spec.containers[name="gateway"].env: duplicate entries for key [name="A"]',
    );
    const ports = [{ containerPort: 8080 }, { containerPort: 8080, protocol: 'TCP' }];
    const portsRefused = await apply(
      'twice',
      deployment('twice', [{ name: 'gateway', image: 'g', ports }]),
      'x',
    );
    expect(portsRefused.status).toBe(422);
    expect(messageOf(portsRefused)).toContain(
      'duplicate entries for key [containerPort=8080,protocol="TCP"]',
    );
    // Nothing was stored.
    expect((await kubeRequest(cluster.kc, 'GET', `${deployments()}/twice`)).status).toBe(404);
  });

  it('is accepted in a create and an update, and an apply of other fields leaves the duplicates alone', async () => {
    const env = [
      { name: 'A', value: '1' },
      { name: 'A', value: '2' },
    ];
    const body = deployment('kept', [{ name: 'gateway', image: 'gatehouse:1', env }]);
    const created = await kubeRequest(cluster.kc, 'POST', `${deployments()}?fieldManager=creator`, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const object = await applied('kept', partial('kept', { hostname: 'kept' }), 'operator');
    expect(object.spec.template.spec.hostname).toBe('kept');
    expect(object.spec.template.spec.containers[0]?.env).toEqual(env);
  });
});

describe('lists keyed as their type and path declare', () => {
  const spread = (whenUnsatisfiable: string, extra: Json = {}) => ({
    maxSkew: 1,
    topologyKey: 'zone',
    whenUnsatisfiable,
    ...extra,
  });

  it('merges topologySpreadConstraints by topologyKey and whenUnsatisfiable; a labelSelector is owned whole', async () => {
    const selector = { labelSelector: { matchLabels: { app: 'spread' } } };
    const gateway = [{ name: 'gateway', image: 'gatehouse:1' }];
    const podSpec = { topologySpreadConstraints: [spread('DoNotSchedule', selector)] };
    await applied('spread', deployment('spread', gateway, podSpec), 'installer');
    const controller = { topologySpreadConstraints: [spread('ScheduleAnyway')] };
    const object = await applied('spread', partial('spread', controller), 'controller');
    expect(object.spec.template.spec.topologySpreadConstraints).toEqual([
      spread('DoNotSchedule', selector),
      spread('ScheduleAnyway'),
    ]);
    const item = { '.': {}, 'f:maxSkew': {}, 'f:topologyKey': {}, 'f:whenUnsatisfiable': {} };
    expect(podSpecFields(object, 'controller')?.['f:topologySpreadConstraints']).toEqual({
      'k:{"topologyKey":"zone","whenUnsatisfiable":"ScheduleAnyway"}': item,
    });
    expect(podSpecFields(object, 'installer')?.['f:topologySpreadConstraints']).toEqual({
      'k:{"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}': { ...item, 'f:labelSelector': {} },
    });
  });

  it('owns tolerations whole: another manager changing them conflicts', async () => {
    const tolerations = (key: string) => ({ tolerations: [{ key, operator: 'Exists' }] });
    const gateway = [{ name: 'gateway', image: 'gatehouse:1' }];
    await applied('tolerant', deployment('tolerant', gateway, tolerations('a')), 'installer');
    const refused = await apply('tolerant', partial('tolerant', tolerations('b')), 'controller');
    expect(refused.status).toBe(409);
    expect(messageOf(refused)).toBe(
      'Apply failed with 1 conflict: conflict with "installer": .spec.template.spec.tolerations',
    );
  });

  it("merges a ServiceAccount's secrets by name and owns its imagePullSecrets whole", async () => {
    const path = `/api/v1/namespaces/${namespace}/serviceaccounts/robot`;
    const account = (fields: Json) => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot' },
      ...fields,
    });
    const send = (fields: Json, manager: string) =>
      kubeRequest(cluster.kc, 'PATCH', `${path}?fieldManager=${manager}`, account(fields), APPLY);
    const first = await send({ secrets: [{ name: 's1' }], imagePullSecrets: [{ name: 'p1' }] }, 'installer');
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const merged = await send({ secrets: [{ name: 's2' }] }, 'controller');
    expect((merged.body as Json).secrets).toEqual([{ name: 's1' }, { name: 's2' }]);
    const refused = await send({ imagePullSecrets: [{ name: 'p2' }] }, 'controller');
    expect(refused.status).toBe(409);
    expect(messageOf(refused)).toBe(
      'Apply failed with 1 conflict: conflict with "installer": .imagePullSecrets',
    );
  });
});
