/**
 * The whole operator promoting on real Prometheus metrics (docs/adr/0007-operator.md, "Requirements": the
 * rollout, the runtime, and the tests against a real Prometheus and a fake API server that speaks the real
 * protocol): the in-process operator runtime (`startOperator`) with the reconciler `gatehouse operator` runs
 * (`createDefaultReconciler`: the real reconciler, the real Prometheus analysis, the system clock), against the
 * fake API server through the real @kubernetes/client-node, reading a real Prometheus (the Debian `prometheus`
 * binary) that scrapes, every second, one loopback endpoint per namespace serving the gateway's own gate metrics
 * (`createGateMetrics` in warn mode), labelled with that namespace as Kubernetes service discovery would.
 *
 * Two AuthConfigs with `apiAuth.mode: enforce`, automatic promotion, no minimum soak and a 10 s analysis interval
 * (the CRD's floor) over a 30 s window:
 * - `healthy`: its gateway sees only passing requests → warn at once, then enforce at its first analysis with
 *   enough samples (10 s after entering warn), with the figures in the history;
 * - `noisy`: one request in ten would be denied → warn at once, and it stays there with Promotable=False,
 *   RatioTooHigh once its analysis has run.
 *
 * Real time, so the waits poll observable state (the Kubernetes objects, the Prometheus API) against deadlines;
 * the only timers are the poll interval and the gateways' traffic, which keeps coming every second as a live
 * gateway's would, so every analysis window holds fresh samples.
 *
 * Why the would-deny ratio is exact: every verdict series exists at 0 and is scraped before the traffic (the
 * gateway creates its mode's series at 0), so increase() does not extrapolate a window back past that 0 sample,
 * and the end of the window is extrapolated by the same factor for every series of one target (they share their
 * scrape timestamps). The counts, though, grow by up to 1.1 scrape intervals over the sampled span.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CoordinationV1Api,
  CustomObjectsApi,
  type V1ConfigMap,
  type V1Deployment,
} from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateMetrics, type GateVerdict } from '../../gateway/src/gate/gate-metrics.ts';
import { GATE_METRIC_NAMES } from '../../gateway/src/operator-api.ts';
import { API_VERSION, GROUP, KIND, LABELS, PLURAL, VERSION } from '../src/api/names.ts';
import { gateSecrets, specWith } from '../../test/support/operator/fixtures.ts';
import type { AuthConfigStatus } from '../src/api/types.generated.ts';
import { createDefaultReconciler } from '../src/runtime/default-reconciler.ts';
import { silentLogger } from '../src/runtime/logger.ts';
import { LEASE_NAME, startOperator, type RunningOperator } from '../src/runtime/operator.ts';
import { eventually } from '../../test/support/eventually.ts';
import {
  createNamespace,
  deleteNamespace,
  uniqueNamespaceName,
  type TestCluster,
} from '../../test/support/fake-kube/index.ts';
import { startOperatorCluster } from '../../test/support/operator-cluster.ts';
import {
  serveRegistries,
  startPrometheus,
  type Exporter,
  type RunningPrometheus,
} from '../../test/support/prometheus.ts';
import { requireTool } from '../../test/support/tools.ts';

const prometheus = await requireTool('prometheus', 'prometheus');

const TARGET = 'gateway';
const NAME = 'main';
const MIN_GATED_REQUESTS = 50;
const MAX_WOULD_DENY_RATIO = 0.01;
const ANALYSIS_INTERVAL_S = 10;
/** Short lease timings (production 15 s / 10 s / 2 s): the operators lead within a retry period. */
const FAST_LEASE = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };

interface Gateway {
  /** The AuthConfig's namespace: the `namespace` label Prometheus puts on this gateway's series. */
  namespace: string;
  registry: Registry;
  /** Per gated request, the verdicts one second of traffic brings: the first second's, then each next one's. */
  burst: Partial<Record<GateVerdict, number>>;
  tick: Partial<Record<GateVerdict, number>>;
  sent: Record<GateVerdict, number>;
  send(verdicts: Partial<Record<GateVerdict, number>>): void;
}

/** One gateway process in warn (what the operator renders first), counting its gate verdicts. */
function gateway(namespace: string, burst: Gateway['burst'], tick: Gateway['tick']): Gateway {
  const registry = new Registry();
  // In warn the gateway creates its pass, fail and would_deny verdict series at 0 from the start.
  const metrics = createGateMetrics(registry, 'warn');
  const sent = { pass: 0, fail: 0, would_deny: 0 };
  return {
    namespace,
    registry,
    burst,
    tick,
    sent,
    send(verdicts) {
      for (const [outcome, times] of Object.entries(verdicts) as [GateVerdict, number][]) {
        for (let i = 0; i < times; i += 1) metrics.verdict(outcome);
        sent[outcome] += times;
      }
    },
  };
}

// Namespaces of their own (the watch and the Lease are scoped to them), uniquely named so the suite also runs on a
// real cluster, again and again. The three tests are steps of one scenario, so the namespaces are the suite's:
// created before the first test and deleted after the last.
const healthy = gateway(uniqueNamespaceName('rollout-ok'), { pass: 100 }, { pass: 10 });
const noisy = gateway(
  uniqueNamespaceName('rollout-noisy'),
  { pass: 90, would_deny: 10 },
  { pass: 9, would_deny: 1 },
);
const gateways = [healthy, noisy];

let exporter: Exporter | undefined;
let server: RunningPrometheus | undefined;
let prometheusUrl: string;
let cluster: TestCluster | undefined;
let apps: AppsV1Api;
let core: CoreV1Api;
let custom: CustomObjectsApi;
const operators: RunningOperator[] = [];
/** The namespaces created so far, deleted after the last test. */
const namespaces: string[] = [];
let traffic: NodeJS.Timeout | undefined;

/** An instant query's single value straight from the Prometheus HTTP API (NaN when it has no series). */
async function scalar(query: string): Promise<number> {
  const url = new URL('/api/v1/query', prometheusUrl);
  url.searchParams.set('query', query);
  const body = (await (await fetch(url)).json()) as { data?: { result?: { value: [number, string] }[] } };
  const first = body.data?.result?.[0];
  return first ? Number(first.value[1]) : Number.NaN;
}

/** Scrapes of a namespace's verdict series in the last minute. */
const scrapes = (namespace: string) =>
  scalar(
    `count_over_time(${GATE_METRIC_NAMES.requests}{namespace="${namespace}",mode="warn",outcome="pass"}[1m])`,
  );

interface StoredAuthConfig {
  metadata: { generation?: number };
  status?: AuthConfigStatus;
}

async function readAuthConfig(namespace: string): Promise<StoredAuthConfig> {
  return (await custom.getNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace,
    name: NAME,
  })) as StoredAuthConfig;
}

function condition(status: AuthConfigStatus | undefined, type: string) {
  return status?.conditions?.find((item) => item.type === type);
}

/** The API_AUTH_MODE of the env ConfigMap the target Deployment's gateway container now takes its settings from. */
async function deployedMode(namespace: string): Promise<string | undefined> {
  const deployment = await apps.readNamespacedDeployment({ namespace, name: TARGET });
  const container = deployment.spec?.template.spec?.containers.find((item) => item.name === 'gateway');
  const name = container?.envFrom?.find((source) => source.configMapRef)?.configMapRef?.name;
  if (name === undefined) return undefined;
  const maps = await core.listNamespacedConfigMap({
    namespace,
    labelSelector: `${LABELS.authConfig}=${NAME}`,
  });
  const map: V1ConfigMap | undefined = maps.items.find((item) => item.metadata?.name === name);
  return map?.data?.API_AUTH_MODE;
}

function deployment(): V1Deployment {
  return {
    metadata: { name: TARGET, labels: { app: TARGET } },
    spec: {
      selector: { matchLabels: { app: TARGET } },
      template: {
        metadata: { labels: { app: TARGET } },
        spec: { containers: [{ name: 'gateway', image: 'gatehouse:1' }] },
      },
    },
  };
}

async function createAuthConfig(namespace: string): Promise<void> {
  const spec = specWith({
    target: { name: TARGET },
    secretEnv: gateSecrets,
    apiAuth: {
      mode: 'enforce',
      rollout: {
        automaticPromotion: true,
        // The schema admits no soak at all; the first analysis still waits one interval after warn is entered.
        minWarnSoak: '0s',
        analysisInterval: `${ANALYSIS_INTERVAL_S}s`,
        analysisWindow: '30s',
        minGatedRequests: MIN_GATED_REQUESTS,
        maxWouldDenyRatio: MAX_WOULD_DENY_RATIO,
        prometheus: { url: prometheusUrl },
      },
    },
  });
  await custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    plural: PLURAL,
    namespace,
    body: { apiVersion: API_VERSION, kind: KIND, metadata: { name: NAME }, spec },
  });
}

beforeAll(async () => {
  if (!prometheus) return;
  exporter = await serveRegistries(
    new Map(gateways.map(({ namespace, registry }) => [`/${namespace}`, registry])),
  );
  const target = exporter.target;
  server = await startPrometheus(
    prometheus,
    gateways.map(({ namespace }) => ({
      name: namespace,
      target,
      metricsPath: `/${namespace}`,
      labels: { namespace },
    })),
  );
  prometheusUrl = server.url;

  cluster = await startOperatorCluster();
  apps = cluster.kc.makeApiClient(AppsV1Api);
  core = cluster.kc.makeApiClient(CoreV1Api);
  custom = cluster.kc.makeApiClient(CustomObjectsApi);
  for (const { namespace } of gateways) {
    namespaces.push(namespace);
    await createNamespace(cluster.kc, namespace);
    await apps.createNamespacedDeployment({ namespace, body: deployment() });
  }

  // Two scrapes of the zeros before any traffic: every window then starts on a 0 sample.
  await eventually('two scrapes of each gateway', 20_000, async () => {
    for (const { namespace } of gateways) if (!((await scrapes(namespace)) >= 2)) return undefined;
    return true;
  });

  const { kc } = cluster;
  for (const { namespace } of gateways) {
    operators.push(
      await startOperator({
        kubeConfig: kc,
        namespace,
        identity: `operator-${namespace}`,
        port: 0,
        host: '127.0.0.1',
        watchNamespace: namespace,
        leaderElection: FAST_LEASE,
        reconciler: (context) => createDefaultReconciler(kc, context, silentLogger),
      }),
    );
  }
  // Leading, so the AuthConfigs below are reconciled as soon as they exist.
  const coordination = kc.makeApiClient(CoordinationV1Api);
  await eventually('both operators to lead', 15_000, async () => {
    for (const { namespace } of gateways) {
      const lease = await coordination.readNamespacedLease({ name: LEASE_NAME, namespace });
      if (lease.spec?.holderIdentity !== `operator-${namespace}`) return undefined;
    }
    return true;
  });
}, 60_000);

afterAll(async () => {
  if (traffic) clearInterval(traffic);
  await Promise.all(operators.map((operator) => operator.stop()));
  for (const namespace of namespaces) if (cluster) await deleteNamespace(cluster.kc, namespace);
  if (cluster) await cluster.close();
  await server?.stop();
  await exporter?.close();
});

describe.skipIf(!prometheus)('the operator promoting on real Prometheus metrics', () => {
  /** When the test saw each AuthConfig in warn (performance.now()), for the timing bounds. */
  const warnSeenAt = new Map<string, number>();

  it('enters warn at once: the target Deployment runs a ConfigMap with API_AUTH_MODE=warn', async () => {
    for (const { namespace } of gateways) await createAuthConfig(namespace);
    await Promise.all(
      gateways.map(async ({ namespace }) => {
        await eventually(`${namespace}: API_AUTH_MODE=warn deployed`, 10_000, async () =>
          (await deployedMode(namespace)) === 'warn' ? true : undefined,
        );
        warnSeenAt.set(namespace, performance.now());
        const { status } = await readAuthConfig(namespace);
        expect(status?.rollout).toMatchObject({ effectiveMode: 'warn', phase: 1 });
        expect(status?.rollout?.history).toEqual([
          expect.objectContaining({ from: 'disabled', to: 'warn', reason: 'DesiredModeRaised' }),
        ]);
        // No analysis at entry: it would measure the previous mode's traffic.
        expect(status?.rollout?.lastAnalysis).toBeUndefined();
      }),
    );

    // The gateways now run in warn and see traffic: a first second's worth, then more every second.
    for (const item of gateways) item.send(item.burst);
    traffic = setInterval(() => {
      for (const item of gateways) item.send(item.tick);
    }, 1000);
  }, 45_000);

  it('promotes the healthy one to enforce at its first analysis, recording the figures it saw', async () => {
    const { namespace } = healthy;
    const promoted = await eventually(`${namespace}: promoted to enforce`, 30_000, async () => {
      const { status } = await readAuthConfig(namespace);
      return status?.rollout?.effectiveMode === 'enforce' ? status : undefined;
    });
    const promotedSeenAt = performance.now();
    const rollout = promoted.rollout;
    expect(rollout?.history.map(({ from, to, reason }) => `${from}→${to} ${reason}`)).toEqual([
      'disabled→warn DesiredModeRaised',
      'warn→enforce Promoted',
    ]);
    const [entered, promotion] = rollout?.history ?? [];
    const figures = promotion?.figures ?? {};
    // The figures Prometheus gave: no would-deny at all, at least the first second's 100 requests, and no more
    // than were sent by then plus the extrapolation to the window's end.
    expect(figures.failureRatio).toBe(0);
    expect(figures.gatedRequests).toBeGreaterThanOrEqual(MIN_GATED_REQUESTS);
    expect(figures.gatedRequests).toBeGreaterThanOrEqual(healthy.burst.pass ?? 0);
    expect(figures.gatedRequests).toBeLessThanOrEqual(Math.ceil(healthy.sent.pass * 1.2));
    // Promoted by an analysis of warn that passed: the one that ran when the promotion happened.
    expect(rollout?.lastAnalysis).toMatchObject({ ok: true, mode: 'warn', failureRatio: 0 });
    // Never before one analysis interval in warn (no analysis at entry), even with no minimum soak.
    const inWarnMs = Date.parse(promotion?.at ?? '') - Date.parse(entered?.at ?? '');
    expect(inWarnMs).toBeGreaterThanOrEqual(ANALYSIS_INTERVAL_S * 1000);
    // The first analysis (or, on a slow machine, the second) promoted it.
    expect(inWarnMs).toBeLessThan(3 * ANALYSIS_INTERVAL_S * 1000);
    expect(promotedSeenAt - (warnSeenAt.get(namespace) ?? 0)).toBeLessThan(30_000);

    await eventually(`${namespace}: API_AUTH_MODE=enforce deployed`, 10_000, async () =>
      (await deployedMode(namespace)) === 'enforce' ? true : undefined,
    );
    const { status } = await readAuthConfig(namespace);
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'False', reason: 'AtDesiredMode' });
    const events = await core.listNamespacedEvent({ namespace });
    expect(events.items.map((event) => event.reason)).toContain('Promoted');
  }, 45_000);

  it('keeps the noisy one in warn: Promotable=False, RatioTooHigh, after its analysis ran', async () => {
    const { namespace } = noisy;
    const held = await eventually(`${namespace}: analysed with the ratio too high`, 30_000, async () => {
      const { status } = await readAuthConfig(namespace);
      return condition(status, 'Promotable')?.reason === 'RatioTooHigh' ? status : undefined;
    });
    expect(condition(held, 'Promotable')).toMatchObject({ status: 'False', reason: 'RatioTooHigh' });
    const rollout = held.rollout;
    expect(rollout?.effectiveMode).toBe('warn');
    expect(rollout?.history.map(({ from, to, reason }) => `${from}→${to} ${reason}`)).toEqual([
      'disabled→warn DesiredModeRaised',
    ]);
    const analysis = rollout?.lastAnalysis;
    expect(analysis).toMatchObject({ ok: true, mode: 'warn' });
    expect(analysis?.gatedRequests).toBeGreaterThanOrEqual(MIN_GATED_REQUESTS);
    // One in ten, exactly: the pass and would_deny series share their scrapes, so extrapolation cancels out.
    expect(analysis?.failureRatio).toBeCloseTo(0.1, 6);
    expect(Date.parse(analysis?.at ?? '') - Date.parse(rollout?.since ?? '')).toBeGreaterThanOrEqual(
      ANALYSIS_INTERVAL_S * 1000,
    );
    expect(await deployedMode(namespace)).toBe('warn');
  }, 45_000);
});
