/**
 * What every operator suite needs from the cluster it runs on, the same on the fake API server (CI) and on a
 * real cluster (KUBECONFIG set; operator/README.md, "Running the operator suites against a real cluster"):
 * the AuthConfig CRD installed from operator/deploy/crd.yaml, and namespaces of the tests' own, uniquely named
 * so a second run on the same cluster never collides with the first, and deleted when the test ends.
 *
 * Nothing here assumes a controller-manager: no pod is ever scheduled, no Deployment status is written by a
 * controller, and a deleted namespace may stay Terminating.
 */
import { readFileSync } from 'node:fs';
import {
  ApiextensionsV1Api,
  ApiException,
  type KubeConfig,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { onTestFinished } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { CRD_NAME, GROUP, KIND, PLURAL, VERSION } from '../../operator/src/api/names.ts';
import { eventually } from './eventually.ts';
import {
  createNamespace,
  deleteNamespace,
  startTestCluster,
  uniqueNamespaceName,
  type TestCluster,
} from './fake-kube/index.ts';

export const AUTHCONFIG_RESOURCE = { group: GROUP, version: VERSION, plural: PLURAL, kind: KIND } as const;

const CRD_FILE = new URL('../../operator/deploy/crd.yaml', import.meta.url);
/** Installing a CRD is quick, but a loaded API server may take a while to establish it. */
const ESTABLISHED_WAIT_MS = 60_000;

/** The AuthConfig CRD as `kubectl apply -f operator/deploy/crd.yaml` sends it. */
export function authConfigCrd(): V1CustomResourceDefinition {
  return parseYaml(readFileSync(CRD_FILE, 'utf8')) as V1CustomResourceDefinition;
}

/** The cluster an operator suite runs on (the fake, or KUBECONFIG's), with the AuthConfig CRD installed. */
export async function startOperatorCluster(): Promise<TestCluster> {
  const cluster = await startTestCluster({ customResource: AUTHCONFIG_RESOURCE });
  try {
    if (!cluster.fake) await installCrd(cluster.kc, authConfigCrd());
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}

/**
 * Creates the CRD, or replaces it when it is already there (another suite, or an earlier run, installed it;
 * suites run in parallel, so a replace that lost a race is tried again), then waits until it is Established.
 * The CRD is left installed: deleting it would delete the objects of suites still running.
 */
export async function installCrd(kc: KubeConfig, crd: V1CustomResourceDefinition): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const name = crd.metadata?.name ?? CRD_NAME;
  await eventually(`CustomResourceDefinition ${name} written`, ESTABLISHED_WAIT_MS, async () => {
    try {
      await api.createCustomResourceDefinition({ body: crd });
      return true;
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
    }
    const live = await api.readCustomResourceDefinition({ name });
    const metadata = { ...crd.metadata, resourceVersion: live.metadata?.resourceVersion };
    await api.replaceCustomResourceDefinition({ name, body: { ...crd, metadata } });
    return true;
  });
  await eventually(`CustomResourceDefinition ${name} Established`, ESTABLISHED_WAIT_MS, async () => {
    const live = await api.readCustomResourceDefinition({ name });
    const established = live.status?.conditions?.some(
      (condition) => condition.type === 'Established' && condition.status === 'True',
    );
    return established ? true : undefined;
  });
}

/**
 * A namespace of the running test's own (`<prefix>-<pid>-<n>-<random>`, labelled `gatehouse.dev/test`),
 * deleted when the test ends, whether it passed, failed or timed out. The deletion is registered before the
 * namespace is created, so nothing is left behind however the test ends.
 */
export async function testNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = uniqueNamespaceName(prefix);
  onTestFinished(() => deleteNamespace(kc, name));
  await createNamespace(kc, name);
  return name;
}
