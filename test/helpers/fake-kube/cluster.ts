/**
 * Where an end-to-end suite runs (testing guide, "Kubernetes API" row): a real cluster when KUBECONFIG is set,
 * otherwise the fake server. Fault-injection tests need `fake` and skip on a real cluster.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { FakeKube, type FakeKubeOptions } from './server.ts';

export interface TestCluster {
  kc: KubeConfig;
  /** The fake server, or undefined on a real cluster. */
  fake: FakeKube | undefined;
  close(): Promise<void>;
}

export async function startTestCluster(
  options: FakeKubeOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestCluster> {
  if (env.KUBECONFIG) {
    const kc = new KubeConfig();
    kc.loadFromDefault();
    return { kc, fake: undefined, close: () => Promise.resolve() };
  }
  const fake = await FakeKube.start(options);
  return { kc: fake.kubeConfig(), fake, close: () => fake.close() };
}
