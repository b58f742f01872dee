import { performance } from 'node:perf_hooks';
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../../operator/src/api/names.ts';
import { ANNOTATIONS } from '../../operator/src/api/names.ts';
import type { CommitLog } from './commit-log.ts';
import type { DeploymentObserver } from './deployment-observer.ts';
import { runGatehouse, type CliRun, type OperatorProcess } from './operator-process.ts';
import { NAME, type RollbackScenario, type Way } from './rollback-scenario.ts';

/** A step not done within this long fails the benchmark (it is not a slow sample). */
export const STEP_TIMEOUT_MS = 30_000;
/** How often the operator's /metrics are read while waiting for it to go idle between rollbacks. */
const IDLE_POLL_MS = 25;

/** What the rollback steps act on: the API server's commit log, the Deployment watch and the operator. */
export interface RollbackBench {
  scenario: RollbackScenario;
  commits: CommitLog;
  observer: DeploymentObserver;
  operator: OperatorProcess;
  custom: CustomObjectsApi;
  /** The kubeconfig file `gatehouse rollout rollback` is run with. */
  kubeconfigPath: string;
}

/** One measured rollback; every time in ms, on this process's performance.now() clock. */
export interface Sample {
  index: number;
  way: Way;
  /** Accepted (stored) → the Deployment watch shows the new ConfigMap: the measured rollback. */
  rollbackMs: number;
  /** Only with fresh configurations (a reused ConfigMap is not created again). */
  acceptedToConfigMapStoredMs: number | undefined;
  configMapToDeploymentStoredMs: number | undefined;
  acceptedToDeploymentStoredMs: number;
  deploymentStoredToObservedMs: number;
  /** After the measured point: the status recording the rollback. */
  observedToStatusStoredMs: number;
  /** spec: the client's PATCH sent → stored; cli: process spawned → stored. */
  writeStartToAcceptedMs: number;
  /** cli only: spawned → exited. */
  cliProcessMs: number | undefined;
  /** cli only: spawned → the Deployment watch shows the new ConfigMap (what the SRE waits for). */
  cliSpawnToObservedMs: number | undefined;
}

/** A JSON merge patch of the AuthConfig, as `kubectl patch --type merge` sends it. */
export function mergePatch(bench: RollbackBench, body: object): Promise<unknown> {
  const { namespace } = bench.scenario;
  return bench.custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, plural: PLURAL, namespace, name: NAME, body },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/**
 * Waits until the operator has nothing queued or running, and its reconcile count stayed the same over
 * two further reads of its /metrics: the reconciles its own last writes cause (the Deployment patch and the
 * status come back to it as watch events) are over, so the next rollback meets a settled operator rather
 * than queueing behind one of those. Between rollbacks only, never inside a measurement.
 */
export async function operatorIdle(operator: OperatorProcess): Promise<void> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  let previous = -1;
  let quietReads = 0;
  while (quietReads < 2) {
    if (performance.now() > deadline) throw new Error('the operator did not go idle');
    const metrics = await operator.metrics();
    const reconciles = metrics.get('controller_runtime_reconcile_total') ?? 0;
    const idle =
      metrics.get('workqueue_depth') === 0 && metrics.get('controller_runtime_active_workers') === 0;
    quietReads = idle && reconciles === previous ? quietReads + 1 : 0;
    previous = reconciles;
    await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS));
  }
}

/** Resolves once cycle `index` runs in warn: the status records it and the Deployment watch shows it. */
export function warnSettled(
  bench: Pick<RollbackBench, 'scenario' | 'commits' | 'observer'>,
  index: number,
): Promise<unknown> {
  const target = bench.scenario.configMapOf(index, 'warn');
  return Promise.all([
    bench.commits.next(
      bench.scenario.statusShows(target, 'warn'),
      STEP_TIMEOUT_MS,
      `status: warn with ${target.name}`,
    ),
    bench.observer.until(target.name, STEP_TIMEOUT_MS),
  ]);
}

/** Returns the AuthConfig to warn for cycle `index` (rollback lifted, mode warn), then waits until settled. */
export async function returnToWarn(bench: RollbackBench, index: number): Promise<void> {
  const settled = warnSettled(bench, index);
  await mergePatch(bench, {
    metadata: { annotations: { [ANNOTATIONS.rollback]: null } },
    spec: { apiAuth: { mode: 'warn' }, appBaseUrl: bench.scenario.specFor(index, 'warn').appBaseUrl },
  });
  await settled;
  await operatorIdle(bench.operator);
}

/** Asks for the rollback the given way; returns when the write was sent, and the CLI's run if any. */
async function writeRollback(
  bench: RollbackBench,
  way: Way,
): Promise<{ startedAt: number; cli: CliRun | undefined }> {
  if (way === 'spec') {
    const startedAt = performance.now();
    await mergePatch(bench, { spec: { apiAuth: { mode: 'disabled' } } });
    return { startedAt, cli: undefined };
  }
  const { namespace } = bench.scenario;
  const run = await runGatehouse(
    ['rollout', 'rollback', NAME, '-n', namespace, '-o', 'json'],
    bench.kubeconfigPath,
  );
  const report = run.code === 0 ? (JSON.parse(run.stdout) as { changed?: boolean }) : undefined;
  if (report?.changed !== true)
    throw new Error(`gatehouse rollout rollback failed (${run.code}): ${run.stdout}${run.stderr}`);
  return { startedAt: run.spawnedAt, cli: run };
}

/**
 * Rollback `index`, made the given way, from a settled warn: every change it waits for is registered
 * before the write, and timed when the API server stores it (or when the watch delivers it).
 */
export async function rollback(bench: RollbackBench, index: number, way: Way): Promise<Sample> {
  const { scenario, commits } = bench;
  const target = scenario.configMapOf(index, 'disabled');
  const what = (step: string) => `rollback ${index} (${way}): ${step}`;
  const steps = Promise.all([
    commits.next(scenario.rollbackWrite(way), STEP_TIMEOUT_MS, what('the write')),
    scenario.reuse === 'fresh'
      ? commits.next(scenario.configMapCreated(target.name), STEP_TIMEOUT_MS, what(`${target.name} created`))
      : Promise.resolve(undefined),
    commits.next(scenario.deploymentReferences(target.name), STEP_TIMEOUT_MS, what('Deployment applied')),
    bench.observer.until(target.name, STEP_TIMEOUT_MS),
    commits.next(scenario.statusShows(target, 'disabled'), STEP_TIMEOUT_MS, what('status recorded')),
  ]);
  // Should the write fail, the waits above end with the benchmark's teardown: not an unhandled rejection.
  steps.catch(() => undefined);
  const write = await writeRollback(bench, way);
  const [accepted, configMap, deployment, observedAt, status] = await steps;
  const { cli } = write;
  return {
    index,
    way,
    rollbackMs: observedAt - accepted.at,
    acceptedToConfigMapStoredMs: configMap && configMap.at - accepted.at,
    configMapToDeploymentStoredMs: configMap && deployment.at - configMap.at,
    acceptedToDeploymentStoredMs: deployment.at - accepted.at,
    deploymentStoredToObservedMs: observedAt - deployment.at,
    observedToStatusStoredMs: status.at - observedAt,
    writeStartToAcceptedMs: accepted.at - write.startedAt,
    cliProcessMs: cli && cli.exitedAt - cli.spawnedAt,
    cliSpawnToObservedMs: cli && observedAt - cli.spawnedAt,
  };
}
