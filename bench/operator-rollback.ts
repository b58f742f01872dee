/**
 * `npm run bench:operator-rollback`: how long the operator takes to roll API_AUTH_MODE back to `disabled`,
 * the part of the 30-second rollback budget that happens in the API server and the operator
 * (operator/README.md, "Rollback in under 30 seconds", adds up the rest on a real cluster).
 *
 * The fake Kubernetes API server (test/support/fake-kube) runs in this process; `gatehouse operator` runs as
 * its own process against it through a kubeconfig file, as in its pod: the real command with its default
 * reconciler, leader election, informers, work queue and logging, on an event loop of its own, so this
 * process's watches and the server's work do not share a thread with it. An AuthConfig in `warn` targets a
 * one-container Deployment; once converged, BENCH_ROLLBACKS (50) rollbacks alternate the two ways an SRE has:
 *
 * - `spec`: a merge PATCH of `spec.apiAuth.mode: disabled` (what `kubectl edit` or `kubectl apply` sends);
 * - `cli`: `gatehouse rollout rollback NAME` as its own process (the `gatehouse.dev/rollback` annotation).
 *
 * Each is measured from the moment the API server stores the change (read from the fake's own store, so the
 * server's acceptance and not a client's guess) to the moment this process's watch on the Deployment delivers
 * the pod template whose `envFrom` names the new ConfigMap. That covers the operator's watch delivery, its
 * work queue, the reconcile's reads, the rollout decision, rendering, the ConfigMap's creation, the
 * server-side apply of the Deployment, and the delivery to a watcher of Deployments (as the Deployment
 * controller is). The CLI's own time (process start, module loading, kubeconfig, its GET and PATCH) is
 * measured apart, from spawn to acceptance and to exit.
 *
 * Between rollbacks the AuthConfig goes back to `warn` (annotation removed, mode warn) by one merge PATCH,
 * not measured, and the benchmark waits until the status records it and the operator's /metrics show it idle,
 * so each rollback starts from a settled operator and is a real change. With BENCH_ROLLBACK_CONFIG=fresh (the
 * default) each return also changes `spec.appBaseUrl`, so each rollback renders a configuration never seen
 * before and creates its ConfigMap; with `reused`, every rollback points back at the disabled ConfigMap of the
 * first one (no creation). A real rollback meets one case or the other.
 *
 * Why from `warn` and not `enforce`: a rollback is one reconcile from either (operator/README.md, "Rollout
 * decisions", rule 1), but getting back to enforce would take a warn soak and an analysis per cycle.
 *
 * Output: JSON on stdout; exit status 1 when a rollback took 30 s or more. Options (env): BENCH_ROLLBACKS
 * (default 50), BENCH_ROLLBACK_CONFIG (fresh|reused).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { AppsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION } from '../operator/src/api/names.ts';
import { benchDeployment } from './lib/apply-benchmark.ts';
import { createNamespace, FakeKube, installCrdFile } from '../test/support/fake-kube/index.ts';
import { CommitLog } from './lib/commit-log.ts';
import { DeploymentObserver } from './lib/deployment-observer.ts';
import { startOperatorProcess, type OperatorProcess } from './lib/operator-process.ts';
import { rollbackReport } from './lib/rollback-report.ts';
import { NAME, RollbackScenario, type Way } from './lib/rollback-scenario.ts';
import {
  operatorIdle,
  returnToWarn,
  rollback,
  warnSettled,
  type RollbackBench,
  type Sample,
} from './lib/rollback-steps.ts';

const ROLLBACKS = Number(process.env.BENCH_ROLLBACKS ?? 50);
const REUSE = process.env.BENCH_ROLLBACK_CONFIG === 'reused' ? 'reused' : 'fresh';
/** The whole rollback, pods included, must take less than this; the part measured here is a small share. */
const BUDGET_MS = 30_000;
const NAMESPACE = 'bench-rollback';
/** The operator's own namespace (its Lease), as gatehouse-system is in operator/deploy. */
const OPERATOR_NAMESPACE = 'bench-rollback-system';
const root = fileURLToPath(new URL('..', import.meta.url));
const LOG_FILE = path.join(root, 'bench/out/operator-rollback.log');
const CRD_FILE = path.join(root, 'operator/deploy/crd.yaml');

const wayOf = (index: number): Way => (index % 2 === 1 ? 'spec' : 'cli');

/** The CRD, the namespaces, the Deployment and the AuthConfig in warn, before any operator runs. */
async function seed(fake: FakeKube, scenario: RollbackScenario): Promise<void> {
  const kc = fake.kubeConfig(NAMESPACE);
  // The CRD as `kubectl apply -f operator/deploy/crd.yaml` installs it, so the server checks every
  // AuthConfig write (the benchmark's and the operator's) against its schema and rules.
  await installCrdFile(kc, CRD_FILE);
  await createNamespace(kc, NAMESPACE);
  await createNamespace(kc, OPERATOR_NAMESPACE);
  await kc
    .makeApiClient(AppsV1Api)
    .createNamespacedDeployment({ namespace: NAMESPACE, body: benchDeployment(NAME) });
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace: NAMESPACE,
    body: {
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: { name: NAME },
      spec: scenario.specFor(1, 'warn'),
    },
  });
}

/** Starts the operator on the seeded cluster; returns it once cycle 1 runs in warn and it is idle. */
async function startOperator(
  bench: Omit<RollbackBench, 'operator'>,
): Promise<{ operator: OperatorProcess; firstConvergenceMs: number }> {
  const settled = warnSettled(bench, 1);
  settled.catch(() => undefined);
  const startedAt = performance.now();
  const operator = await startOperatorProcess({
    kubeconfigPath: bench.kubeconfigPath,
    namespace: OPERATOR_NAMESPACE,
    identity: 'bench-rollback',
    logFile: LOG_FILE,
  });
  try {
    await settled;
    const firstConvergenceMs = performance.now() - startedAt;
    await operatorIdle(operator);
    return { operator, firstConvergenceMs };
  } catch (error) {
    // Not handed to the caller yet, so its teardown would not stop it.
    await operator.stop();
    throw error;
  }
}

async function measure(bench: RollbackBench): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let index = 1; index <= ROLLBACKS; index += 1) {
    if (index > 1) await returnToWarn(bench, index);
    samples.push(await rollback(bench, index, wayOf(index)));
  }
  return samples;
}

const fake = await FakeKube.start();
const kc = fake.kubeConfig(NAMESPACE);
const scenario = new RollbackScenario(NAMESPACE, REUSE);
const commits = new CommitLog(fake);
const observer = new DeploymentObserver(kc, NAMESPACE, NAME);
const dir = await mkdtemp(path.join(tmpdir(), 'gatehouse-bench-rollback-'));
const kubeconfigPath = path.join(dir, 'config');
let operator: OperatorProcess | undefined;
const loadBefore = loadavg();
const startedAt = new Date();
try {
  await writeFile(kubeconfigPath, kc.exportConfig());
  await seed(fake, scenario);
  await observer.start();
  const base = { scenario, commits, observer, custom: kc.makeApiClient(CustomObjectsApi), kubeconfigPath };
  const started = await startOperator(base);
  operator = started.operator;
  const samples = await measure({ ...base, operator });
  const report = rollbackReport(samples, {
    startedAt,
    loadAverage: { before: loadBefore, after: loadavg() },
    reuse: REUSE,
    budgetMs: BUDGET_MS,
    firstConvergenceMs: started.firstConvergenceMs,
    metrics: await operator.metrics(),
    operatorLog: path.relative(root, LOG_FILE),
  });
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  process.exitCode = report.budget.met ? 0 : 1;
} finally {
  observer.stop();
  commits.close();
  await operator?.stop();
  await fake.close();
  await rm(dir, { recursive: true, force: true });
}
