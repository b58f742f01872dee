/**
 * The documented install (operator/README.md, "Install"), run with the real kubectl exactly as written there:
 * `kubectl apply -f operator/deploy/`, then an AuthConfig with `kubectl apply -n <namespace> -f
 * operator/examples/authconfig.yaml`; and `kubectl apply -k operator`. On the fake API server, started empty as a
 * fresh cluster is (the CRD comes from the install); on the cluster of `KUBECONFIG` when it is set.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { FakeKube, uniqueNamespaceName } from '../../test/support/fake-kube/index.ts';
import { kubectlFor, type Kubectl } from '../../test/support/kube-tools.ts';

const onCluster = Boolean(process.env.KUBECONFIG);
const DEPLOY = new URL('./', import.meta.url);

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** Every document of every `.yaml` file in operator/deploy/, as `kubectl apply -f` reads the folder. */
async function deployManifests(): Promise<Manifest[]> {
  const files = (await readdir(DEPLOY)).filter((file) => /\.(ya?ml|json)$/.test(file)).sort();
  const manifests: Manifest[] = [];
  for (const file of files) {
    const text = await readFile(new URL(file, DEPLOY), 'utf8');
    for (const document of parseAllDocuments(text)) manifests.push(document.toJS() as Manifest);
  }
  return manifests;
}

/** `kubectl get -o name` spelling: `customresourcedefinition.apiextensions.k8s.io/authconfigs.gatehouse.dev`. */
function objectName(manifest: Manifest): string {
  const group = manifest.apiVersion.includes('/') ? `.${manifest.apiVersion.split('/')[0]}` : '';
  return `${manifest.kind.toLowerCase()}${group}/${manifest.metadata.name}`;
}

interface Installation {
  kubectl: Kubectl;
  fake: FakeKube | undefined;
  close(): Promise<void>;
}

async function freshCluster(): Promise<Installation> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-install-'));
  const fake = onCluster ? undefined : await FakeKube.start({ anonymous: true });
  return {
    kubectl: await kubectlFor(fake?.url, dir),
    fake,
    async close() {
      await fake?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs kubectl and expects exit 0 with nothing on stderr; returns stdout. */
async function ok(kubectl: Kubectl, args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl(args, { input });
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return result.stdout;
}

async function createNamespace(kubectl: Kubectl, name: string): Promise<void> {
  const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
  await ok(kubectl, ['apply', '-f', '-'], JSON.stringify(namespace));
}

/** Checks what operator/deploy/ installs: every object exists, the CRD is Established, the Deployment as written. */
async function expectInstalled(kubectl: Kubectl, manifests: Manifest[]): Promise<void> {
  const names = await ok(kubectl, ['get', '-f', 'operator/deploy/', '-o', 'name']);
  expect(names.trim().split('\n').sort()).toEqual(manifests.map(objectName).sort());
  await ok(kubectl, [
    'wait',
    '--for=condition=Established',
    'customresourcedefinition/authconfigs.gatehouse.dev',
    '--timeout=60s',
  ]);
  const deployment = JSON.parse(
    await ok(kubectl, ['get', 'deployment', 'gatehouse-operator', '-n', 'gatehouse-system', '-o', 'json']),
  ) as { spec: { template: { spec: { serviceAccountName: string } } } };
  expect(deployment.spec.template.spec.serviceAccountName).toBe('gatehouse-operator');
}

describe('kubectl apply -f operator/deploy/, then an AuthConfig', () => {
  let cluster: Installation;
  let manifests: Manifest[];
  const namespaces: string[] = [];

  beforeAll(async () => {
    cluster = await freshCluster();
    manifests = await deployManifests();
  });

  afterAll(async () => {
    for (const name of namespaces) await cluster.kubectl(['delete', 'namespace', name, '--wait=false']);
    await cluster.close();
  });

  it('installs every document of every file: the CRD (Established), the namespace, the RBAC, the operator', async () => {
    const stdout = await ok(cluster.kubectl, ['apply', '-f', 'operator/deploy/']);
    if (!onCluster) {
      expect(stdout.trim().split('\n').sort()).toEqual(
        manifests.map((manifest) => `${objectName(manifest)} created`).sort(),
      );
    }
    await expectInstalled(cluster.kubectl, manifests);
  });

  it('applies again with nothing to change', async () => {
    cluster.fake?.clearRequests();
    const stdout = await ok(cluster.kubectl, ['apply', '-f', 'operator/deploy/']);
    expect(stdout.trim().split('\n').sort()).toEqual(
      manifests.map((manifest) => `${objectName(manifest)} unchanged`).sort(),
    );
    expect(cluster.fake?.requests.filter((request) => request.method !== 'GET') ?? []).toEqual([]);
  });

  it('creates the example AuthConfig in any namespace given with -n', async () => {
    const namespace = uniqueNamespaceName('install');
    namespaces.push(namespace);
    await createNamespace(cluster.kubectl, namespace);
    const stdout = await ok(cluster.kubectl, [
      'apply',
      '-n',
      namespace,
      '-f',
      'operator/examples/authconfig.yaml',
    ]);
    expect(stdout).toBe('authconfig.gatehouse.dev/gateway created\n');
    const created = JSON.parse(
      await ok(cluster.kubectl, ['get', 'authconfig', 'gateway', '-n', namespace, '-o', 'json']),
    ) as Manifest & { spec: { target: { name: string } } };
    expect(created.metadata.namespace).toBe(namespace);
    expect(created.spec.target.name).toBe('gatehouse');
  });

  it('refuses an invalid AuthConfig with the field named, whether it creates or patches', async () => {
    const namespace = namespaces[0] ?? '';
    const example = await readFile(new URL('../examples/authconfig.yaml', import.meta.url), 'utf8');
    const badEnum = example
      .replace('name: gateway', 'name: invalid')
      .replace('mode: enforce #', 'mode: sometimes #');
    const created = await cluster.kubectl(['apply', '-n', namespace, '-f', '-'], { input: badEnum });
    expect(created.code).toBe(1);
    expect(created.stderr).toContain(
      'spec.apiAuth.mode: Unsupported value: "sometimes": supported values: "disabled", "warn", "enforce"',
    );
    // kubectl asks for strict field validation: an unknown field is an error, not silently dropped.
    const unknownField = example.replace('appEnv: production', 'appEnv: production\n  appEnvironment: prod');
    const patched = await cluster.kubectl(['apply', '-n', namespace, '-f', '-'], { input: unknownField });
    expect(patched.code).toBe(1);
    expect(patched.stderr).toContain('strict decoding error: unknown field "spec.appEnvironment"');
    const names = await ok(cluster.kubectl, ['get', 'authconfigs', '-n', namespace, '-o', 'name']);
    expect(names).toBe('authconfig.gatehouse.dev/gateway\n');
  });
});

describe('kubectl apply -k operator', () => {
  it('installs what kubectl apply -f operator/deploy/ installs', async () => {
    const cluster = await freshCluster();
    try {
      await ok(cluster.kubectl, ['apply', '-k', 'operator']);
      await expectInstalled(cluster.kubectl, await deployManifests());
    } finally {
      await cluster.close();
    }
  });
});
