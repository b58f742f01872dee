import { performance } from 'node:perf_hooks';
import { AppsV1Api, CustomObjectsApi, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { systemClock } from '../../gateway/src/operator-api.ts';
import type { AnalysisSource } from '../../operator/src/prometheus/types.ts';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION } from '../../operator/src/api/names.ts';
import type { AuthConfigSpecInput } from '../../operator/src/api/types.generated.ts';
import { createReconciler } from '../../operator/src/reconcile/reconciler.ts';
import type { Reconciler } from '../../operator/src/reconcile/types.ts';
import { percentile } from '../../test/support/health-probe.ts';

export interface ApplyBenchmarkOptions {
  kubeConfig: KubeConfig;
  /** A namespace of the benchmark's own (its AuthConfig and Deployment are created there). */
  namespace: string;
  /** How many spec changes to time (50 by default: the target is a p99 over 50 changes). */
  changes?: number;
  /** The reconciler to time; by default one built on `kubeConfig` with no analysis. */
  reconciler?: Reconciler;
}

export interface ApplyBenchmarkResult {
  changes: number;
  /** Each change's time from the spec write to the end of the reconcile that applied it, in ms. */
  samplesMs: number[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const NAME = 'bench';

/** The smallest gateway Deployment an AuthConfig can target: one `gateway` container. */
export function benchDeployment(name: string): V1Deployment {
  return {
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'gateway', image: 'gatehouse' }] },
      },
    },
  };
}

/**
 * Times "applying an AuthConfig produces the hashed ConfigMap and patches the Deployment" with the reconciler
 * called directly (no watches, no queue): the baseline `bench/operator.ts` sets the operator runtime against.
 * The operator's target is a p99 within 2 s over 50 changes (operator/README.md, "Reconciliation",
 * "Benchmark"). Each change is a new `appBaseUrl`, so each is a new ConfigMap and a Deployment patch. Real
 * time, not a test clock.
 */
export async function benchmarkApply(options: ApplyBenchmarkOptions): Promise<ApplyBenchmarkResult> {
  const { kubeConfig, namespace } = options;
  const changes = options.changes ?? 50;
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const resource = { group: GROUP, version: VERSION, plural: PLURAL, namespace };
  const reconciler =
    options.reconciler ?? createReconciler({ kubeConfig, clock: systemClock, analysis: noAnalysis });

  await apps.createNamespacedDeployment({ namespace, body: benchDeployment(NAME) });
  const body = (index: number) => ({
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: NAME, namespace },
    spec: benchSpec(NAME, index),
  });
  await custom.createNamespacedCustomObject({ ...resource, body: body(0) });
  await reconciler.reconcile({ namespace, name: NAME });

  const samplesMs: number[] = [];
  for (let index = 1; index <= changes; index += 1) {
    const started = performance.now();
    const current = (await custom.getNamespacedCustomObject({ ...resource, name: NAME })) as {
      metadata: { resourceVersion: string };
    };
    const next = body(index);
    await custom.replaceNamespacedCustomObject({
      ...resource,
      name: NAME,
      body: { ...next, metadata: { ...next.metadata, resourceVersion: current.metadata.resourceVersion } },
    });
    await reconciler.reconcile({ namespace, name: NAME });
    samplesMs.push(performance.now() - started);
  }
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    changes,
    samplesMs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? 0,
  };
}

/** The benchmarks' AuthConfig spec for a Deployment `target`: change `index` differs only in its base URL. */
export function benchSpec(target: string, index: number): AuthConfigSpecInput {
  return {
    target: { name: target },
    authMode: 'local',
    appBaseUrl: `https://gateway-${index}.example.com`,
    secretEnv: [{ name: 'AUTH_SECRET', secretKeyRef: { name: 'gatehouse-secrets', key: 'auth-secret' } }],
  };
}

/** The benchmark's AuthConfig keeps the gate disabled: no analysis is ever asked for. */
const noAnalysis: AnalysisSource = {
  analyse: () => Promise.resolve({ ok: false, error: 'no analysis in the apply benchmark' }),
};
