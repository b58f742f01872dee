/**
 * Where an end-to-end suite runs: a real cluster when KUBECONFIG is set, for a reviewer with one
 * (test/support/fake-kube/README.md), otherwise the fake server. Fault-injection tests need `fake` and skip on a
 * real cluster.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { isCrdDocument } from './crd-document.ts';
import { installCrd, installCrdFile } from './install-crd.ts';
import { FakeKube, type FakeKubeOptions } from './server.ts';
import type { KubeObject } from './types.ts';

export interface TestCluster {
  kc: KubeConfig;
  /** The fake server, or undefined on a real cluster. */
  fake: FakeKube | undefined;
  close(): Promise<void>;
}

export interface TestClusterOptions extends FakeKubeOptions {
  /**
   * CRDs installed through the API before the suite runs, the same way on the fake and on a real cluster: a
   * path to a YAML file (every CustomResourceDefinition document in it, e.g. `operator/deploy/crd.yaml`) or a
   * CRD document. Each is created or replaced and waited for until Established.
   */
  installCrds?: ReadonlyArray<string | KubeObject>;
}

export async function startTestCluster(
  options: TestClusterOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestCluster> {
  const { installCrds = [], ...fakeOptions } = options;
  // A CRD document given as `customResource` is installed through the API on a real cluster too.
  const custom = isCrdDocument(options.customResource) ? [options.customResource] : [];
  let cluster: TestCluster;
  if (env.KUBECONFIG) {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    cluster = { kc, fake: undefined, close: () => Promise.resolve() };
    for (const crd of custom) await installCrd(kc, crd);
  } else {
    const fake = await FakeKube.start(fakeOptions);
    cluster = { kc: fake.kubeConfig(), fake, close: () => fake.close() };
  }
  try {
    for (const crd of installCrds) {
      if (typeof crd === 'string') await installCrdFile(cluster.kc, crd);
      else await installCrd(cluster.kc, crd);
    }
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}
