/** The fake Kubernetes API server for the operator's tests (see README.md beside this file). */
export { startTestCluster, type TestCluster, type TestClusterOptions } from './cluster.ts';
export { CrdInstallError, installCrd, installCrdFile, isEstablished, readCrdFile } from './install-crd.ts';
export { kubeRequest, type KubeResponse } from './kube-request.ts';
export { FakeKube, type FakeKubeOptions, type FaultOptions, type FaultTarget } from './server.ts';
export { KubeError } from './status.ts';
export type { CustomResourceOptions, KubeObject, RequestRecord } from './types.ts';
export {
  createNamespace,
  createTestNamespace,
  deleteNamespace,
  uniqueNamespaceName,
} from './test-namespace.ts';
