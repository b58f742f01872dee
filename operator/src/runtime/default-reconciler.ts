/**
 * The reconciler `gatehouse operator` runs: the real one (operator/src/reconcile) with the Prometheus rollout
 * analysis (operator/src/prometheus) on the system clock.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { systemClock } from '../../../gateway/src/operator-api.ts';
import { createPrometheusAnalysis } from '../prometheus/analysis-source.ts';
import { createReconciler } from '../reconcile/reconciler.ts';
import type { Reconciler } from '../reconcile/types.ts';
import type { RuntimeLogger } from './logger.ts';
import type { ReconcilerContext } from './operator.ts';

/** Per Prometheus query: an analysis that cannot answer in time counts as a query error, never a pass. */
export const ANALYSIS_TIMEOUT_MS = 10_000;

export function createDefaultReconciler(
  kubeConfig: KubeConfig,
  context: ReconcilerContext,
  logger: RuntimeLogger,
): Reconciler {
  return createReconciler({
    kubeConfig,
    clock: systemClock,
    analysis: createPrometheusAnalysis({ timeoutMs: ANALYSIS_TIMEOUT_MS }),
    metrics: context.metrics,
    logger: {
      info: (fields, message) => logger.info({ ...fields }, message),
      warn: (fields, message) => logger.warn({ ...fields }, message),
    },
  });
}
