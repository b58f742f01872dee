/**
 * The operator runtime (operator/README.md, "Runtime"; the faults of docs/adr/0007-operator.md, "Requirements")
 * against the fake Kubernetes API server through the real @kubernetes/client-node, with a recording reconciler in
 * place of the real one: watches, relist on 410 Gone, the watchdog on a stalled watch, retries with backoff,
 * leader election on a Lease (one acts, the other takes over), graceful release, and the HTTP endpoints.
 *
 * Each test works in a namespace of its own (the watch and the Lease are scoped to it), deleted when the test
 * ends, so operators left from one test cannot act on another's objects; the operators are stopped and the CLI's
 * process killed when their test ends, even on a timeout. With KUBECONFIG set the suite runs against that cluster
 * (it installs the CRD); the fault-injection tests need the fake and skip there.
 */
import {
  AppsV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
} from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { GROUP, KIND, PLURAL, VERSION } from '../src/api/names.ts';
import { gateSecrets, specWith } from '../../test/support/operator/fixtures.ts';
import type { AuthConfigSpecInput } from '../src/api/types.generated.ts';
import type { ObjectKey, ReconcileResult } from '../src/reconcile/types.ts';
import {
  LEASE_NAME,
  startOperator,
  type OperatorOptions,
  type RunningOperator,
} from '../src/runtime/index.ts';
import type { FakeKube, TestCluster } from '../../test/support/fake-kube/index.ts';
import { startOperatorCluster, testNamespace } from '../../test/support/operator-cluster.ts';
import { endsWithTest, freePort, spawnGateway } from '../../test/support/process.ts';

const onRealCluster = Boolean(process.env.KUBECONFIG);
/** Short lease timings so a takeover takes a second or two (production: 15 s / 10 s / 2 s). */
const FAST_LEASE = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 200 };

let cluster: TestCluster;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let coordination: CoordinationV1Api;
let apps: AppsV1Api;
const running: RunningOperator[] = [];

beforeAll(async () => {
  cluster = await startOperatorCluster();
  kc = cluster.kc;
  custom = kc.makeApiClient(CustomObjectsApi);
  coordination = kc.makeApiClient(CoordinationV1Api);
  apps = kc.makeApiClient(AppsV1Api);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((operator) => operator.stop()));
});

afterAll(async () => {
  await cluster.close();
});

function fake(): FakeKube {
  if (!cluster.fake) throw new Error('this test needs the fake API server');
  return cluster.fake;
}

/** A namespace of the running test's own, deleted when it ends (after its operators are stopped). */
function freshNamespace(): Promise<string> {
  return testNamespace(kc, 'rt');
}

interface Call {
  key: string;
  at: number;
}

/** A reconciler that records its calls; tests await calls (events), never sleep. */
function recordingReconciler(behaviour?: (key: string, attempt: number) => ReconcileResult) {
  const calls: Call[] = [];
  const waiters: Array<() => void> = [];
  return {
    calls,
    reconciler: {
      reconcile(key: ObjectKey): Promise<ReconcileResult> {
        const id = `${key.namespace}/${key.name}`;
        calls.push({ key: id, at: performance.now() });
        for (const wake of waiters.splice(0)) wake();
        try {
          return Promise.resolve(behaviour?.(id, calls.filter((c) => c.key === id).length) ?? {});
        } catch (error) {
          return Promise.reject(error instanceof Error ? error : new Error(String(error)));
        }
      },
    },
    /** Resolves when a call for `key` beyond the first `after` calls has happened. */
    async callFor(key: string, after = 0, timeoutMs = 10_000): Promise<Call> {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const found = calls.slice(after).find((c) => c.key === key);
        if (found) return found;
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`no reconcile of ${key} after call #${after} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
}

async function start(
  namespace: string,
  options: Partial<OperatorOptions> & Pick<OperatorOptions, 'reconciler'>,
): Promise<RunningOperator> {
  const operator = await startOperator({
    kubeConfig: kc,
    namespace,
    identity: `operator-${namespace}`,
    port: 0,
    host: '127.0.0.1',
    watchNamespace: namespace,
    leaderElection: FAST_LEASE,
    ...options,
  });
  running.push(operator);
  return operator;
}

async function createAuthConfig(namespace: string, name: string, target = 'gateway'): Promise<void> {
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace,
    body: {
      apiVersion: `${GROUP}/${VERSION}`,
      kind: KIND,
      metadata: { name },
      spec: validSpec(target),
    },
  });
}

/**
 * A spec the CRD admits, whose `apiAuth.mode` can be patched to any mode: the gate secrets and the Prometheus
 * URL that warn and enforce need are there from the start.
 */
function validSpec(target: string): AuthConfigSpecInput {
  return specWith({
    target: { name: target },
    secretEnv: gateSecrets,
    apiAuth: { mode: 'disabled', rollout: { prometheus: { url: 'http://prometheus.test:9090' } } },
  });
}

async function patchAuthConfig(
  namespace: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<void> {
  await custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: PLURAL, namespace, name, body: { spec } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

async function get(port: number, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, body: await response.text() };
}

describe('watching AuthConfigs', () => {
  it('reconciles an AuthConfig when it is created and when it changes', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler();
    await start(ns, { reconciler: recorder.reconciler });
    await createAuthConfig(ns, 'main');
    await recorder.callFor(`${ns}/main`);
    const seen = recorder.calls.length;
    await patchAuthConfig(ns, 'main', { apiAuth: { mode: 'warn' } });
    await recorder.callFor(`${ns}/main`, seen);
    expect(recorder.calls.every((c) => c.key === `${ns}/main`)).toBe(true);
  });

  it('reconciles the AuthConfig that targets a Deployment when the Deployment changes', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler();
    await createAuthConfig(ns, 'main', 'gateway');
    await start(ns, { reconciler: recorder.reconciler });
    await recorder.callFor(`${ns}/main`);
    const seen = recorder.calls.length;
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: 'gateway' },
        spec: {
          selector: { matchLabels: { app: 'gateway' } },
          template: {
            metadata: { labels: { app: 'gateway' } },
            spec: { containers: [{ name: 'gateway', image: 'gatehouse:1' }] },
          },
        },
      },
    });
    await recorder.callFor(`${ns}/main`, seen);
  });

  it.skipIf(onRealCluster)('relists after 410 Gone and keeps delivering changes', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler();
    await createAuthConfig(ns, 'main');
    const operator = await start(ns, { reconciler: recorder.reconciler, watchDeployments: false });
    await watchIsOpen(ns, recorder);
    const listsBefore = authConfigLists(ns);

    expect(fake().expireWatches()).toBeGreaterThan(0);
    // The relist enqueues everything, so the AuthConfig is reconciled again without any change to it.
    await recorder.callFor(`${ns}/main`, recorder.calls.length);
    expect(authConfigLists(ns)).toBeGreaterThan(listsBefore);
    expect(
      await operator.metrics.registry.getSingleMetricAsString('gatehouse_operator_watch_restarts_total'),
    ).toMatch(/reason="gone"\} [1-9]/);

    const seen = recorder.calls.length;
    await patchAuthConfig(ns, 'main', { apiAuth: { mode: 'enforce' } });
    await recorder.callFor(`${ns}/main`, seen);
  });

  it.skipIf(onRealCluster)('restarts a silently stalled watch after the watchdog period', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler();
    await createAuthConfig(ns, 'main');
    const operator = await start(ns, {
      reconciler: recorder.reconciler,
      watchDeployments: false,
      watchdogMs: 700,
    });
    await watchIsOpen(ns, recorder);

    expect(fake().stallWatches()).toBeGreaterThan(0);
    const seen = recorder.calls.length;
    // Sent to the stalled watch, this change is lost; the watchdog's relist picks it up.
    await patchAuthConfig(ns, 'main', { apiAuth: { mode: 'warn' } });
    await recorder.callFor(`${ns}/main`, seen);
    expect(
      await operator.metrics.registry.getSingleMetricAsString('gatehouse_operator_watch_restarts_total'),
    ).toMatch(/reason="watchdog"\} [1-9]/);
    // And the new watch delivers.
    await createAuthConfig(ns, 'second');
    await recorder.callFor(`${ns}/second`);
  });
});

/**
 * Waits until the operator's watch is open: `main` (created before the operator started) is reconciled from
 * the list, then a change to it can only reach the operator through the watch.
 */
async function watchIsOpen(ns: string, recorder: ReturnType<typeof recordingReconciler>): Promise<void> {
  await recorder.callFor(`${ns}/main`);
  const seen = recorder.calls.length;
  await patchAuthConfig(ns, 'main', { appEnv: `watch-${seen}` });
  await recorder.callFor(`${ns}/main`, seen);
}

function authConfigLists(ns: string): number {
  return fake().requests.filter(
    (r) =>
      r.method === 'GET' && !r.watch && r.path === `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}`,
  ).length;
}

describe('the work queue', () => {
  it('retries a failing reconcile with backoff until it succeeds, and honours requeueAfterMs', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler((_key, attempt) => {
      if (attempt <= 2) throw new Error(`transient failure ${attempt}`);
      if (attempt === 3) return { requeueAfterMs: 50 };
      return {};
    });
    const operator = await start(ns, {
      reconciler: recorder.reconciler,
      watchDeployments: false,
      backoff: { baseDelayMs: 100, maxDelayMs: 1_000 },
    });
    await createAuthConfig(ns, 'flaky');
    const key = `${ns}/flaky`;
    await recorder.callFor(key, 3);
    const times = recorder.calls.filter((c) => c.key === key).map((c) => c.at);
    // Equal jitter: the n-th retry waits between half and all of 100 ms * 2^(n-1).
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(45);
    expect((times[2] as number) - (times[1] as number)).toBeGreaterThanOrEqual(95);
    expect((times[3] as number) - (times[2] as number)).toBeGreaterThanOrEqual(45);

    const text = await operator.metrics.registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_errors_total\{controller="authconfig"\} 2/);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="authconfig",result="error"\} 2/);
    expect(text).toMatch(
      /controller_runtime_reconcile_total\{controller="authconfig",result="requeue_after"\} 1/,
    );
  });
});

describe('leader election', () => {
  it('with two operators exactly one reconciles; the other takes over when the leader dies', async () => {
    const ns = await freshNamespace();
    const first = recordingReconciler();
    const second = recordingReconciler();
    const a = await start(ns, {
      identity: 'operator-a',
      reconciler: first.reconciler,
      watchDeployments: false,
    });
    const b = await start(ns, {
      identity: 'operator-b',
      reconciler: second.reconciler,
      watchDeployments: false,
    });
    await createAuthConfig(ns, 'one');
    await createAuthConfig(ns, 'two');
    const firstCall = await Promise.race([first.callFor(`${ns}/two`), second.callFor(`${ns}/two`)]);
    const [leader, standby, leaderRecorder, standbyRecorder] = first.calls.includes(firstCall)
      ? [a, b, first, second]
      : [b, a, second, first];
    await leaderRecorder.callFor(`${ns}/one`);
    expect(leader.isLeader).toBe(true);
    expect(standby.isLeader).toBe(false);
    expect(standbyRecorder.calls).toEqual([]);
    expect((await get(standby.port, '/readyz')).body).toMatch(/standby/);

    // A crash: renewals stop and the Lease is not released.
    const killedAt = performance.now();
    await leader.stop({ releaseLease: false });
    await standbyRecorder.callFor(`${ns}/one`, 0, 15_000);
    const tookOverMs = performance.now() - killedAt;
    expect(tookOverMs).toBeLessThan(15_000);
    // Not before the lease duration: the dead leader's Lease was respected.
    expect(tookOverMs).toBeGreaterThanOrEqual(FAST_LEASE.leaseDurationMs - FAST_LEASE.retryPeriodMs);
    expect(standby.isLeader).toBe(true);
    const lease = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace: ns });
    expect(lease.spec?.holderIdentity).toBe(standby === a ? 'operator-a' : 'operator-b');
    expect(lease.spec?.leaseTransitions).toBe(1);
  });

  it('a graceful stop releases the Lease at once, so the standby does not wait for it to expire', async () => {
    const ns = await freshNamespace();
    // A long lease: a takeover within seconds can only come from the release.
    const slowLease = { leaseDurationMs: 60_000, renewDeadlineMs: 40_000, retryPeriodMs: 200 };
    const first = recordingReconciler();
    const second = recordingReconciler();
    const a = await start(ns, {
      identity: 'operator-a',
      reconciler: first.reconciler,
      watchDeployments: false,
      leaderElection: slowLease,
    });
    await createAuthConfig(ns, 'main');
    await first.callFor(`${ns}/main`);
    await start(ns, {
      identity: 'operator-b',
      reconciler: second.reconciler,
      watchDeployments: false,
      leaderElection: slowLease,
    });

    await a.stop();
    const released = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace: ns });
    // Either still free, or already taken by the standby: never held by the stopped one.
    expect(released.spec?.holderIdentity ?? '').not.toBe('operator-a');
    await second.callFor(`${ns}/main`, 0, 5_000);
  });
});

describe('HTTP endpoints', () => {
  it('serves /healthz, /readyz and /metrics with the controller-runtime and rollout metrics', async () => {
    const ns = await freshNamespace();
    const recorder = recordingReconciler();
    const operator = await start(ns, {
      reconciler: ({ metrics }) => ({
        async reconcile(key) {
          metrics.setPhase(key, 1);
          metrics.recordTransition(key, { from: 'disabled', to: 'warn', reason: 'DesiredModeRaised' });
          return recorder.reconciler.reconcile(key);
        },
      }),
      watchDeployments: false,
    });
    expect(await get(operator.port, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    await createAuthConfig(ns, 'main');
    await recorder.callFor(`${ns}/main`);
    const ready = await get(operator.port, '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatch(/leader, informers synced/);

    const metrics = await get(operator.port, '/metrics');
    expect(metrics.status).toBe(200);
    for (const name of [
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'workqueue_depth{name="authconfig"}',
      `leader_election_master_status{name="${LEASE_NAME}"} 1`,
      `gatehouse_operator_authconfig_phase{namespace="${ns}",name="main"} 1`,
      'gatehouse_operator_rollout_transitions_total{',
    ]) {
      expect(metrics.body).toContain(name);
    }
    expect((await get(operator.port, '/nope')).status).toBe(404);
  });
});

describe('gatehouse operator', () => {
  it('runs from the CLI, leads, serves /healthz and releases the Lease on SIGTERM', async () => {
    const ns = await freshNamespace();
    const dir = await mkdtemp(join(tmpdir(), 'gatehouse-operator-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const kubeconfig = process.env.KUBECONFIG ?? join(dir, 'config');
    if (!process.env.KUBECONFIG) await writeFile(kubeconfig, kc.exportConfig());
    const port = await freePort();
    const operator = endsWithTest(
      spawnGateway({
        args: [
          'operator',
          '--port',
          String(port),
          '--namespace',
          ns,
          '--identity',
          'cli-operator',
          '--watch-namespace',
          ns,
        ],
        // Its own empty namespace to watch: the real reconciler must not touch the other tests' objects.
        env: { KUBECONFIG: kubeconfig, LOG_LEVEL: 'info' },
      }),
    );
    operator.child.stdin.end();
    await operator.waitForOutput(/became leader/);
    expect(await get(port, '/healthz')).toEqual({ status: 200, body: 'ok\n' });
    const held = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace: ns });
    expect(held.spec?.holderIdentity).toBe('cli-operator');

    operator.child.kill('SIGTERM');
    expect(await operator.exited).toBe(0);
    const released = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace: ns });
    expect(released.spec?.holderIdentity).toBeUndefined();
  });
});
