/**
 * Namespaces for tests, the same on the fake server and on a real cluster (test/support/fake-kube/README.md):
 * each test makes its own uniquely named namespace and deletes it afterwards. A real API server refuses to create
 * anything in a namespace that does not exist, and so does the fake.
 */
import { ApiException, CoreV1Api, type KubeConfig, type V1Namespace } from '@kubernetes/client-node';

let counter = 0;

/**
 * A namespace name unique to this process and call, safe to reuse a cluster across runs:
 * `<prefix>-<pid>-<n>-<random>`, cut to the 63 characters a namespace name may have.
 */
export function uniqueNamespaceName(prefix: string): string {
  counter += 1;
  const suffix = `-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
  const words = prefix
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const head = trimDashes(words.join('-').slice(0, 63 - suffix.length));
  return `${head || 'ns'}${suffix}`;
}

function trimDashes(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '-') end -= 1;
  return text.slice(0, end);
}

/** Creates a namespace (labelled as a test's, so leftovers are easy to find: `-l gatehouse.dev/test`). */
export async function createNamespace(kc: KubeConfig, name: string): Promise<V1Namespace> {
  return kc.makeApiClient(CoreV1Api).createNamespace({
    body: { metadata: { name, labels: { 'gatehouse.dev/test': 'true' } } },
  });
}

/** Creates a fresh uniquely named namespace and returns its name. */
export async function createTestNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = uniqueNamespaceName(prefix);
  await createNamespace(kc, name);
  return name;
}

/**
 * Deletes a namespace and so everything in it. The server marks it Terminating and the namespace controller
 * removes the contents afterwards (a cluster without a controller-manager leaves it Terminating). A namespace
 * already gone or already terminating is fine: cleanup may run twice.
 */
export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  try {
    await kc.makeApiClient(CoreV1Api).deleteNamespace({ name });
  } catch (error) {
    if (error instanceof ApiException && (error.code === 404 || error.code === 409)) return;
    throw error;
  }
}
