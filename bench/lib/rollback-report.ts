import { cpus } from 'node:os';
import { histogram, summarise, type LatencySummary } from './latency.ts';
import type { ConfigReuse } from './rollback-scenario.ts';
import type { Sample } from './rollback-steps.ts';

/** What the rollback benchmark knows besides its samples, for its report. */
export interface RollbackRun {
  startedAt: Date;
  loadAverage: { before: number[]; after: number[] };
  reuse: ConfigReuse;
  budgetMs: number;
  /** The operator's start → the first AuthConfig converged (leader election and first lists included). */
  firstConvergenceMs: number;
  /** The operator's own /metrics at the end, summed by name. */
  metrics: Map<string, number>;
  operatorLog: string;
}

/** The summary of one measure over the samples that have it; `null` when none has (e.g. reused ConfigMaps). */
const summaryOf = (
  samples: readonly Sample[],
  pick: (sample: Sample) => number | undefined,
): LatencySummary | null => {
  const values = samples.flatMap((sample) => pick(sample) ?? []);
  return values.length === 0 ? null : summarise(values);
};

const round2 = (value: number): number => Math.round(value * 100) / 100;

/** The figures that decide the benchmark: the rollback per way and overall, and its shape. */
function rollbackFigures(samples: readonly Sample[]) {
  const spec = samples.filter((sample) => sample.way === 'spec');
  const cli = samples.filter((sample) => sample.way === 'cli');
  return {
    all: summarise(samples.map((sample) => sample.rollbackMs)),
    spec: summaryOf(spec, (sample) => sample.rollbackMs),
    cli: summaryOf(cli, (sample) => sample.rollbackMs),
    distribution: histogram(samples.map((sample) => sample.rollbackMs)),
  };
}

/** Where a rollback's time goes, between the write and the Deployment seen, and just after. */
function breakdown(samples: readonly Sample[]) {
  const spec = samples.filter((sample) => sample.way === 'spec');
  return {
    'accepted → ConfigMap stored (operator watch delivery, queue, reads, decide, render, create)': summaryOf(
      samples,
      (sample) => sample.acceptedToConfigMapStoredMs,
    ),
    'ConfigMap stored → Deployment stored (server-side apply)': summaryOf(
      samples,
      (sample) => sample.configMapToDeploymentStoredMs,
    ),
    'accepted → Deployment stored': summaryOf(samples, (sample) => sample.acceptedToDeploymentStoredMs),
    'Deployment stored → seen by a watch': summaryOf(
      samples,
      (sample) => sample.deploymentStoredToObservedMs,
    ),
    'after: seen → status stored': summaryOf(samples, (sample) => sample.observedToStatusStoredMs),
    'spec: PATCH sent → stored': summaryOf(spec, (sample) => sample.writeStartToAcceptedMs),
  };
}

/** The CLI's own time: a process that starts, loads its modules and the kubeconfig, reads and patches. */
function cliFigures(samples: readonly Sample[]) {
  const cli = samples.filter((sample) => sample.way === 'cli');
  return {
    'spawned → stored (process start, modules, kubeconfig, GET, PATCH)': summaryOf(
      cli,
      (sample) => sample.writeStartToAcceptedMs,
    ),
    'spawned → exited': summaryOf(cli, (sample) => sample.cliProcessMs),
    'spawned → Deployment seen (the SRE presses enter → the new pod template)': summaryOf(
      cli,
      (sample) => sample.cliSpawnToObservedMs,
    ),
  };
}

/** The benchmark's JSON report. */
export function rollbackReport(samples: readonly Sample[], run: RollbackRun) {
  const figures = rollbackFigures(samples);
  return {
    date: run.startedAt.toISOString(),
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model,
      node: process.version,
      loadAverage: { before: run.loadAverage.before.map(round2), after: run.loadAverage.after.map(round2) },
    },
    settings: {
      rollbacks: samples.length,
      config: run.reuse,
      server: 'test/support/fake-kube, in the benchmark process (HTTP on 127.0.0.1)',
      operator: '`gatehouse operator` as its own process, default settings, LOG_LEVEL=info',
      ways: {
        spec: 'merge PATCH spec.apiAuth.mode: disabled (odd rollbacks)',
        cli: '`gatehouse rollout rollback NAME -o json` as a process (even rollbacks)',
      },
      measured:
        'the API server stores the rollback write → a watch on the Deployment shows the pod template with envFrom the new ConfigMap',
    },
    firstConvergenceMs: Math.round(run.firstConvergenceMs),
    rollback: figures,
    breakdown: breakdown(samples),
    cli: cliFigures(samples),
    budget: { ms: run.budgetMs, p99Ms: figures.all.p99Ms, met: figures.all.maxMs < run.budgetMs },
    operatorMetrics: {
      reconciles: run.metrics.get('controller_runtime_reconcile_total'),
      reconcileErrors: run.metrics.get('controller_runtime_reconcile_errors_total') ?? 0,
      queueRetries: run.metrics.get('workqueue_retries_total') ?? 0,
      watchRestarts: run.metrics.get('gatehouse_operator_watch_restarts_total') ?? 0,
      transitions: run.metrics.get('gatehouse_operator_rollout_transitions_total'),
    },
    operatorLog: run.operatorLog,
    samples: samples.map((sample) => ({
      index: sample.index,
      way: sample.way,
      rollbackMs: round2(sample.rollbackMs),
      ...(sample.cliProcessMs === undefined ? {} : { cliProcessMs: Math.round(sample.cliProcessMs) }),
    })),
  };
}
