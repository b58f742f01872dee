/**
 * The fake Kubernetes API server driven by the real kubectl (test/support/kube-tools.ts): what kubectl asks of a
 * server before and while it applies (discovery, OpenAPI v3, client-side apply with strategic merge patches),
 * answered as a real server answers. The install of operator/deploy/ is checked in operator/deploy/install.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKube, type KubeObject } from './index.ts';
import { kubectlFor, type Kubectl } from '../kube-tools.ts';

const AUTHCONFIG = { group: 'gatehouse.dev', version: 'v1alpha1', plural: 'authconfigs', kind: 'AuthConfig' };

let fake: FakeKube;
let dir: string;
let kubectl: Kubectl;

beforeAll(async () => {
  fake = await FakeKube.start({ customResource: AUTHCONFIG, anonymous: true });
  dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-kubectl-'));
  kubectl = await kubectlFor(fake.url, dir);
});

afterAll(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

/** kubectl's answer, failing the test with its stderr when it did not exit 0. */
async function ok(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl(args, { input });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

async function getJson(args: readonly string[]): Promise<KubeObject> {
  return JSON.parse(await ok(['get', ...args, '-o', 'json'])) as KubeObject;
}

/** A Deployment as a manifest (JSON is YAML to kubectl), with what an upgrade of it changes. */
function deployment(version: { image: string; env: Array<{ name: string; value: string }>; labels: object }) {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: version.labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: version.image, env: version.env, ports: [{ containerPort: 8080 }] },
            { name: 'sidecar', image: 'proxy:1' },
          ],
        },
      },
    },
  });
}

describe('kubectl against the fake', () => {
  it('discovers every served kind, short names included, and the named groups', async () => {
    const resources = await ok(['api-resources', '-o', 'name']);
    for (const name of [
      'namespaces',
      'configmaps',
      'serviceaccounts',
      'deployments.apps',
      'leases.coordination.k8s.io',
      'clusterroles.rbac.authorization.k8s.io',
      'clusterrolebindings.rbac.authorization.k8s.io',
      'roles.rbac.authorization.k8s.io',
      'rolebindings.rbac.authorization.k8s.io',
      'authconfigs.gatehouse.dev',
    ]) {
      expect(resources.split('\n')).toContain(name);
    }
    expect(await ok(['get', 'ns', 'default', '-o', 'name'])).toBe('namespace/default\n');
  });

  it('applies client-side: a create with the last-applied annotation and strict field validation asked of the server', async () => {
    fake.clearRequests();
    const v1 = deployment({
      image: 'web:1',
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
      labels: { app: 'web', tier: 'front' },
    });
    expect(await ok(['apply', '-f', '-'], v1)).toBe('deployment.apps/web created\n');
    const created = await getJson(['deployment', 'web']);
    expect(created.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']).toBeDefined();
    // kubectl found `fieldValidation` in the OpenAPI v3 document, so it left validation to the server.
    const post = fake.requests.find((r) => r.method === 'POST');
    expect(post?.query).toMatchObject({
      fieldManager: 'kubectl-client-side-apply',
      fieldValidation: 'Strict',
    });
    expect(fake.requests.some((r) => r.path === '/openapi/v3')).toBe(true);

    fake.clearRequests();
    expect(await ok(['apply', '-f', '-'], v1)).toBe('deployment.apps/web unchanged\n');
    expect(fake.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('upgrades by a strategic merge patch: list elements merged by name, removed ones deleted, order kept', async () => {
    const v2 = deployment({
      image: 'web:2',
      env: [
        { name: 'C', value: '3' },
        { name: 'A', value: '1' },
      ],
      labels: { app: 'web' },
    });
    fake.clearRequests();
    expect(await ok(['apply', '-f', '-'], v2)).toBe('deployment.apps/web configured\n');
    expect(fake.requests.find((r) => r.method === 'PATCH')?.contentType).toBe(
      'application/strategic-merge-patch+json',
    );
    const upgraded = (await getJson(['deploy', 'web'])) as KubeObject & {
      spec: { template: { spec: { containers: Array<{ name: string; image: string; env?: unknown }> } } };
    };
    expect(upgraded.metadata.labels).toEqual({ app: 'web' });
    expect(upgraded.metadata.generation).toBe(2);
    expect(upgraded.spec.template.spec.containers).toEqual([
      {
        name: 'web',
        image: 'web:2',
        env: [
          { name: 'C', value: '3' },
          { name: 'A', value: '1' },
        ],
        ports: [{ containerPort: 8080 }],
      },
      { name: 'sidecar', image: 'proxy:1' },
    ]);
  });

  it('patches a custom object by merge patch; a strategic merge patch is refused with 415, as a real server does', async () => {
    const authConfig = JSON.stringify({
      apiVersion: 'gatehouse.dev/v1alpha1',
      kind: 'AuthConfig',
      metadata: { name: 'gw' },
      spec: { target: { name: 'gatehouse' }, plugins: ['auth'] },
    });
    await ok(['apply', '-n', 'default', '-f', '-'], authConfig);
    const refused = await kubectl([
      'patch',
      'authconfig',
      'gw',
      '--type',
      'strategic',
      '-p',
      '{"spec":{"plugins":["auth","kyc"]}}',
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'application/strategic-merge-patch+json is not supported by gatehouse.dev/v1alpha1, Kind=AuthConfig: ' +
        'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
    await ok(['patch', 'authconfig', 'gw', '--type', 'merge', '-p', '{"spec":{"plugins":["auth","kyc"]}}']);
    expect((await getJson(['authconfig', 'gw'])).spec).toEqual({
      target: { name: 'gatehouse' },
      plugins: ['auth', 'kyc'],
    });
  });
});

describe('kubectl against the fake, where a real server differs from the fake or refuses', () => {
  it('refuses an object of a kind nothing serves as a real server does: no matches for kind', async () => {
    const kustomization = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization' };
    const result = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(kustomization) });
    expect(result.code).toBe(1);
    // Not a validation error: the v3 documents say the kind takes no fieldValidation, kubectl reads the
    // (empty) v2 document to validate on its side, finds no schema for the kind, and fails to map it.
    expect(result.stderr).toContain(
      'no matches for kind "Kustomization" in version "kustomize.config.k8s.io/v1beta1"\nensure CRDs are installed first',
    );
    expect(fake.requests.some((r) => r.path === '/openapi/v2' && r.status === 200)).toBe(true);
  });

  it('refuses the protobuf body of kubectl create namespace with 415: the fake speaks JSON only', async () => {
    const result = await kubectl(['create', 'namespace', 'from-protobuf']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error from server (UnsupportedMediaType)');
  });
});

describe('strategic merge patch directives', () => {
  async function patch(kind: string, name: string, body: unknown): Promise<Response> {
    const [prefix, plural] =
      kind === 'namespace' ? ['/api/v1', 'namespaces'] : ['/apis/apps/v1/namespaces/default', 'deployments'];
    return fetch(`${fake.url}${prefix}/${plural}/${name}`, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${fake.token}`,
        'content-type': 'application/strategic-merge-patch+json',
      },
      body: JSON.stringify(body),
    });
  }

  it('replaces a map ($patch: replace), clears fields outside $retainKeys, and deletes from a set list', async () => {
    const created = await fetch(`${fake.url}/apis/apps/v1/namespaces/default/deployments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name: 'directives', labels: { a: '1', b: '2' }, finalizers: ['x/one', 'x/two'] },
        spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } }, replicas: 1 },
      }),
    });
    expect(created.status).toBe(201);
    const answer = await patch('deployment', 'directives', {
      metadata: {
        labels: { $patch: 'replace', c: '3' },
        '$deleteFromPrimitiveList/finalizers': ['x/one'],
        finalizers: ['x/three'],
      },
      spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } },
    });
    expect(answer.status).toBe(200);
    const patched = (await answer.json()) as KubeObject & { spec: unknown };
    expect(patched.metadata.labels).toEqual({ c: '3' });
    expect(patched.metadata.finalizers).toEqual(['x/two', 'x/three']);
    expect(patched.spec).toEqual({ strategy: { type: 'Recreate' }, replicas: 1 });
  });

  it('refuses a directive it does not know with 422 and changes nothing', async () => {
    const answer = await patch('namespace', 'default', { metadata: { $unknown: true } });
    expect(answer.status).toBe(422);
    expect(await answer.json()).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
  });
});

describe('credentials', () => {
  it('lets a request without credentials through only with anonymous: true; a wrong token is always 401', async () => {
    const strict = await FakeKube.start();
    try {
      expect((await fetch(`${strict.url}/api/v1/namespaces`)).status).toBe(401);
    } finally {
      await strict.close();
    }
    expect((await fetch(`${fake.url}/api/v1/namespaces`)).status).toBe(200);
    const wrong = await fetch(`${fake.url}/api/v1/namespaces`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });
});
