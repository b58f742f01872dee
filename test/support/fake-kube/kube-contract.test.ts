/**
 * The Kubernetes API behaviours the operator and its suites rely on, one expectation each, checked the same way
 * against the fake API server (CI) and against a real cluster when KUBECONFIG is set
 * (test/support/fake-kube/README.md), so the two can be compared. Only what both servers do alike is asserted:
 * status codes, reasons, fields and the key fragments of messages. Checks that need the fake's fault controls
 * skip on a real cluster. Each run uses its own namespaces and deletes them.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { eventually } from '../eventually.ts';
import {
  createTestNamespace,
  deleteNamespace,
  installCrdFile,
  isEstablished,
  kubeRequest,
  readCrdFile,
  startTestCluster,
  uniqueNamespaceName,
  type KubeObject,
  type KubeResponse,
  type TestCluster,
} from './index.ts';

const CRD_FILE = 'operator/deploy/crd.yaml';
const UNGUARDED_CRD = 'test/support/fake-kube/fixtures/authconfig-crd-unguarded.yaml';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

let cluster: TestCluster;
let namespace: string;
const extraNamespaces: string[] = [];

const authConfigs = (ns = namespace) => `/apis/gatehouse.dev/v1alpha1/namespaces/${ns}/authconfigs`;
const configMaps = (ns = namespace) => `/api/v1/namespaces/${ns}/configmaps`;
const request = (method: string, path: string, body?: unknown, contentType?: string) =>
  kubeRequest(cluster.kc, method, path, body, contentType);

/** The example AuthConfig (operator/examples/authconfig.yaml, namespace-free) under a new name. */
function exampleAuthConfig(name: string): KubeObject {
  const example = parseYaml(readFileSync('operator/examples/authconfig.yaml', 'utf8')) as KubeObject;
  const { namespace: _namespace, ...metadata } = example.metadata;
  return { ...example, metadata: { ...metadata, name } };
}

function withSpec(name: string, change: (spec: Record<string, unknown>) => void): KubeObject {
  const object = exampleAuthConfig(name);
  change(object.spec as Record<string, unknown>);
  return object;
}

interface Cause {
  reason: string;
  message: string;
  field: string;
}

/** The Status of a refused request, with its causes. */
function status(response: KubeResponse): { message: string; reason: string; causes: Cause[] } {
  const body = response.body as { message: string; reason: string; details?: { causes?: Cause[] } };
  return { message: body.message, reason: body.reason, causes: body.details?.causes ?? [] };
}

async function created(path: string, body: unknown): Promise<KubeObject> {
  const response = await request('POST', path, body);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as KubeObject;
}

beforeAll(async () => {
  cluster = await startTestCluster({ installCrds: [CRD_FILE] });
  namespace = await createTestNamespace(cluster.kc, 'contract');
});

afterAll(async () => {
  for (const ns of [namespace, ...extraNamespaces]) if (ns) await deleteNamespace(cluster.kc, ns);
  await cluster?.close();
});

describe('CRDs', () => {
  it('accepts operator/deploy/crd.yaml and reports it Established', async () => {
    const [installed] = await installCrdFile(cluster.kc, CRD_FILE);
    expect(isEstablished(installed as KubeObject)).toBe(true);
  });

  it('refuses the unguarded CRD: each default {} fails its own rules without nested defaulting', async () => {
    const [crd] = await readCrdFile(UNGUARDED_CRD);
    const response = await request('POST', CRDS, crd);
    expect(response.status).toBe(422);
    const { reason, causes, message } = status(response);
    expect(reason).toBe('Invalid');
    expect(message).toContain(
      'CustomResourceDefinition.apiextensions.k8s.io "authconfigs.gatehouse.dev" is invalid',
    );
    const rollout =
      'spec.validation.openAPIV3Schema.properties[spec].properties[apiAuth].properties[rollout].default';
    for (const key of ['minWarnSoak', 'analysisInterval', 'analysisWindow']) {
      expect(causes).toContainEqual(
        expect.objectContaining({
          field: rollout,
          message: expect.stringContaining(
            `Invalid value: "object": no such key: ${key} evaluating rule:`,
          ) as unknown,
        }),
      );
    }
    expect(causes).toContainEqual(
      expect.objectContaining({
        field: 'spec.validation.openAPIV3Schema.properties[spec].properties[apiAuth].default',
        message: expect.stringContaining('no such key: mode evaluating rule:') as unknown,
      }),
    );
  });
});

describe('namespaces', () => {
  it('refuses a create in a namespace that does not exist: 404 namespaces "x" not found', async () => {
    const missing = uniqueNamespaceName('missing');
    const response = await request('POST', configMaps(missing), { metadata: { name: 'x' } });
    expect(response.status).toBe(404);
    expect(status(response)).toMatchObject({
      reason: 'NotFound',
      message: `namespaces "${missing}" not found`,
    });
  });

  it('terminates a deleted namespace: creates in it refused with 403, and (with a namespace controller) its objects removed', async () => {
    const doomed = await createTestNamespace(cluster.kc, 'contract-doomed');
    extraNamespaces.push(doomed);
    await created(configMaps(doomed), { metadata: { name: 'kept-until-gone' } });
    const deleted = await request('DELETE', `/api/v1/namespaces/${doomed}`);
    expect(deleted.status).toBe(200);
    const late = await request('POST', configMaps(doomed), { metadata: { name: 'late' } });
    // Gone already (404) or still terminating (403): never created.
    expect([403, 404]).toContain(late.status);
    if (cluster.fake) {
      await eventually('the namespace and its objects are gone', 5000, async () =>
        (await request('GET', `${configMaps(doomed)}/kept-until-gone`)).status === 404 ? true : undefined,
      );
    }
  });
});

describe('AuthConfig admission (schema and CEL rules of the CRD)', () => {
  it('defaults the spec on create (nested defaults too) and drops a status sent to the main resource', async () => {
    const body = withSpec('defaulted', (spec) => delete spec.apiAuth);
    const object = await created(authConfigs(), { ...body, status: { appliedHash: '0123456789' } });
    expect(object.status).toBeUndefined();
    expect(object.spec).toMatchObject({ apiAuth: { mode: 'disabled', rollout: { analysisWindow: '1h' } } });
    expect(object.metadata.generation).toBe(1);
  });

  it('refuses a pattern violation with 422 naming the field', async () => {
    const response = await request(
      'POST',
      authConfigs(),
      withSpec('bad-pattern', (spec) => (spec.target = { name: 'Not_A_Name' })),
    );
    expect(response.status).toBe(422);
    expect(status(response).causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.target.name',
      message: expect.stringMatching(
        /^Invalid value: "Not_A_Name": spec\.target\.name in body should match '/,
      ) as unknown,
    });
  });

  it('refuses an enum violation with 422 Unsupported value naming the field', async () => {
    const response = await request(
      'POST',
      authConfigs(),
      withSpec('bad-enum', (spec) => (spec.apiAuth = { mode: 'sometimes' })),
    );
    expect(response.status).toBe(422);
    expect(status(response).causes).toContainEqual({
      reason: 'FieldValueNotSupported',
      field: 'spec.apiAuth.mode',
      message: 'Unsupported value: "sometimes": supported values: "disabled", "warn", "enforce"',
    });
  });

  it('refuses a CEL rule violation with 422 at the rule fieldPath and its message', async () => {
    const response = await request(
      'POST',
      authConfigs(),
      withSpec('local-with-oidc', (spec) => {
        spec.authMode = 'local';
        spec.oidc = { enabled: true };
      }),
    );
    expect(response.status).toBe(422);
    expect(status(response).causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'spec.oidc.enabled',
      message: expect.stringContaining(
        'oidc.enabled (OIDC_ENABLED) cannot be true with authMode local',
      ) as unknown,
    });
  });

  it('refuses a status write that breaks the status schema (422 on the status subresource)', async () => {
    await created(authConfigs(), exampleAuthConfig('status-check'));
    const response = await request(
      'PATCH',
      `${authConfigs()}/status-check/status`,
      { status: { appliedHash: 'abc123' } },
      'application/merge-patch+json',
    );
    expect(response.status).toBe(422);
    expect(status(response).causes).toContainEqual({
      reason: 'FieldValueInvalid',
      field: 'status.appliedHash',
      message: `Invalid value: "abc123": status.appliedHash in body should match '^[0-9a-f]{10}$'`,
    });
    const valid = await request(
      'PATCH',
      `${authConfigs()}/status-check/status`,
      { status: { appliedHash: '0123456789' } },
      'application/merge-patch+json',
    );
    expect(valid.status).toBe(200);
  });

  it('drops an unknown field with a Warning header by default, and refuses it under fieldValidation=Strict (400)', async () => {
    const body = withSpec('unknown-field', (spec) => (spec.bogus = true));
    const strict = await request('POST', `${authConfigs()}?fieldValidation=Strict`, body);
    expect(strict.status).toBe(400);
    expect(status(strict)).toMatchObject({ reason: 'BadRequest' });
    expect(status(strict).message).toContain('strict decoding error: unknown field "spec.bogus"');
    const warned = await request('POST', authConfigs(), body);
    expect(warned.status).toBe(201);
    expect(String(warned.headers.warning)).toContain('unknown field \\"spec.bogus\\"');
    expect((warned.body as KubeObject).spec).not.toHaveProperty('bogus');
  });

  it('validates merge patches and server-side apply as creates', async () => {
    await created(authConfigs(), exampleAuthConfig('patched'));
    const merge = await request(
      'PATCH',
      `${authConfigs()}/patched`,
      { spec: { apiAuth: { mode: 'always' } } },
      'application/merge-patch+json',
    );
    expect(merge.status).toBe(422);
    expect(status(merge).causes[0]).toMatchObject({
      reason: 'FieldValueNotSupported',
      field: 'spec.apiAuth.mode',
    });
    const apply = await request(
      'PATCH',
      `${authConfigs()}/patched?fieldManager=contract`,
      {
        apiVersion: 'gatehouse.dev/v1alpha1',
        kind: 'AuthConfig',
        metadata: { name: 'patched' },
        spec: { target: { name: 'Bad Name' } },
      },
      'application/apply-patch+yaml',
    );
    expect(apply.status).toBe(422);
    expect(status(apply).causes).toContainEqual(expect.objectContaining({ field: 'spec.target.name' }));
  });
});

describe('optimistic concurrency and generation', () => {
  it('answers 409 Conflict to a write with a stale resourceVersion', async () => {
    const first = await created(configMaps(), { metadata: { name: 'stale' }, data: { a: '1' } });
    const updated = await request('PUT', `${configMaps()}/stale`, { ...first, data: { a: '2' } });
    expect(updated.status).toBe(200);
    const stale = await request('PUT', `${configMaps()}/stale`, { ...first, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(status(stale).reason).toBe('Conflict');
  });

  it('refuses a PUT of a custom object without metadata.resourceVersion (422)', async () => {
    const object = await created(authConfigs(), exampleAuthConfig('unconditional'));
    const { resourceVersion: _rv, ...metadata } = object.metadata;
    const response = await request('PUT', `${authConfigs()}/unconditional`, { ...object, metadata });
    expect(response.status).toBe(422);
    expect(status(response).message).toContain('metadata.resourceVersion');
  });

  it('keeps the resourceVersion on a write that changes nothing', async () => {
    const object = await created(authConfigs(), exampleAuthConfig('no-op'));
    const again = await request(
      'PATCH',
      `${authConfigs()}/no-op`,
      { spec: { target: object.spec && (object.spec as { target: unknown }).target } },
      'application/merge-patch+json',
    );
    expect((again.body as KubeObject).metadata.resourceVersion).toBe(object.metadata.resourceVersion);
  });

  it('bumps generation on a spec change only, not on status or label writes', async () => {
    await created(authConfigs(), exampleAuthConfig('generations'));
    const path = `${authConfigs()}/generations`;
    const merge = 'application/merge-patch+json';
    const labelled = await request('PATCH', path, { metadata: { labels: { a: 'b' } } }, merge);
    expect((labelled.body as KubeObject).metadata.generation).toBe(1);
    const statusWrite = await request(
      'PATCH',
      `${path}/status`,
      { status: { observedGeneration: 1 } },
      merge,
    );
    expect((statusWrite.body as KubeObject).metadata.generation).toBe(1);
    const spec = await request('PATCH', path, { spec: { apiAuth: { mode: 'warn' } } }, merge);
    expect((spec.body as KubeObject).metadata.generation).toBe(2);
  });
});

describe('server-side apply', () => {
  it('needs a fieldManager (422), creates with 201, and updates what the manager applies', async () => {
    const apply = 'application/apply-patch+yaml';
    const body = (value: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'applied' },
      data: { key: value },
    });
    const path = `${configMaps()}/applied`;
    expect((await request('PATCH', path, body('1'), apply)).status).toBe(422);
    expect((await request('PATCH', `${path}?fieldManager=contract`, body('1'), apply)).status).toBe(201);
    const updated = await request('PATCH', `${path}?fieldManager=contract`, body('2'), apply);
    expect(updated.status).toBe(200);
    expect((updated.body as { data: Record<string, string> }).data).toEqual({ key: '2' });
  });
});

describe('lists and watches', () => {
  it('filters lists by label selector (equality, inequality, set-based)', async () => {
    await created(configMaps(), { metadata: { name: 'sel-gw', labels: { tier: 'gw' } } });
    await created(configMaps(), { metadata: { name: 'sel-db', labels: { tier: 'db' } } });
    const names = async (selector: string) =>
      (
        (await request('GET', `${configMaps()}?labelSelector=${encodeURIComponent(selector)}`)).body as {
          items: KubeObject[];
        }
      ).items
        .map((o) => o.metadata.name)
        .sort();
    expect(await names('tier=gw')).toEqual(['sel-gw']);
    expect(await names('tier!=gw,tier')).toEqual(['sel-db']);
    expect(await names('tier in (gw,db)')).toEqual(['sel-db', 'sel-gw']);
  });

  it('ends a watch from a compacted resourceVersion with a 410 Expired ERROR event', async () => {
    // The fake compacts on demand; a real server has long compacted resourceVersion 1.
    if (cluster.fake) cluster.fake.store.compact();
    const response = await request('GET', `${configMaps()}?watch=true&resourceVersion=1&timeoutSeconds=5`);
    const firstLine = String(response.body).split('\n')[0] ?? '';
    const event = (typeof response.body === 'object' ? response.body : JSON.parse(firstLine)) as {
      type: string;
      object: { code: number; reason: string };
    };
    expect(event).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
  });
});
