/**
 * The fake Kubernetes API server as a process of its own, reached through a kubeconfig file: with `KUBECONFIG`
 * pointing at that file, the operator suites take the path they take on a real cluster (they install the CRD,
 * create their namespaces, skip the fault-injection tests), so that path can be tried without a cluster
 * (operator/README.md, "Running the operator suites against a real cluster").
 *
 *   node_modules/.bin/node test/support/serve-fake-kube.ts /tmp/fake.kubeconfig &
 *   KUBECONFIG=/tmp/fake.kubeconfig npx vitest run operator/test/reconcile.test.ts ...
 *   kill %1
 */
import { writeFile } from 'node:fs/promises';
import { FakeKube } from './fake-kube/index.ts';

const path = process.argv[2];
if (!path) {
  process.stderr.write('usage: serve-fake-kube.ts KUBECONFIG_PATH\n');
  process.exit(64);
}
const fake = await FakeKube.start();
// A real server's watch history does not reach back to its first resourceVersions: nor does this one's.
fake.store.compact();
await writeFile(path, fake.kubeConfig().exportConfig(), { mode: 0o600 });
process.stdout.write(`fake API server on ${fake.url}; kubeconfig written to ${path}\n`);

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void fake.close().then(() => process.exit(0));
  });
}
