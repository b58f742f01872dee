/**
 * What every operator suite needs from the cluster it runs on, the same on the fake API server (CI) and on a
 * real cluster (KUBECONFIG set; operator/README.md, "Running the operator suites against a real cluster"):
 * the AuthConfig CRD installed from operator/deploy/crd.yaml, and namespaces of the tests' own, uniquely named
 * so a second run on the same cluster never collides with the first, and deleted when the test ends.
 *
 * Nothing here assumes a controller-manager: no pod is ever scheduled, no Deployment status is written by a
 * controller, and a deleted namespace may stay Terminating.
 */
import { fileURLToPath } from 'node:url';
import type { KubeConfig } from '@kubernetes/client-node';
import { onTestFinished } from 'vitest';
import { GROUP, KIND, PLURAL, VERSION } from '../../operator/src/api/names.ts';
import {
  createNamespace,
  deleteNamespace,
  startTestCluster,
  uniqueNamespaceName,
  type TestCluster,
} from './fake-kube/index.ts';

export const AUTHCONFIG_RESOURCE = { group: GROUP, version: VERSION, plural: PLURAL, kind: KIND } as const;

/** The CRD exactly as `kubectl apply -f operator/deploy/crd.yaml` installs it. */
export const AUTHCONFIG_CRD_FILE = fileURLToPath(new URL('../../operator/deploy/crd.yaml', import.meta.url));

/**
 * The cluster an operator suite runs on (the fake, or KUBECONFIG's), with the AuthConfig CRD installed through
 * the API (created, or replaced when an earlier run left it, and Established). The CRD is left installed on a
 * real cluster: deleting it would delete the objects of suites still running in parallel.
 */
export function startOperatorCluster(): Promise<TestCluster> {
  return startTestCluster({ installCrds: [AUTHCONFIG_CRD_FILE] });
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
