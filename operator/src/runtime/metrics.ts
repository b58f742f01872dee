/**
 * The operator's Prometheus metrics (operator/README.md, "Runtime", "Metrics"), in one Registry per operator so
 * two operators in one process (the leader-election tests) do not collide. Reconcile and work-queue metrics use
 * controller-runtime's names so existing dashboards and alerts for Go operators work unchanged; the
 * AuthConfig-specific ones carry the `gatehouse_operator_` prefix.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ObjectKey } from '../reconcile/types.ts';

/** What the reconciler reports about the rollout; the runtime serves it on /metrics. */
export interface RolloutMetrics {
  /** The AuthConfig's current rollout phase (0 disabled, 1 warn, 2 enforce, 3 enforce soaked). */
  setPhase(key: ObjectKey, phase: number): void;
  /** What the AuthConfig asks for: the phase it wants and whether the operator promotes on its own. */
  setIntent(key: ObjectKey, intent: { desiredPhase: 0 | 1 | 2; automaticPromotion: boolean }): void;
  /** One API_AUTH_MODE transition (a `status.rollout.history` entry). */
  recordTransition(key: ObjectKey, transition: { from: string; to: string; reason: string }): void;
  /** Drops the AuthConfig's phase and intent series (it was deleted). */
  forget(key: ObjectKey): void;
}

export interface OperatorMetrics extends RolloutMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
}

/** Creates the metrics in `registry` (a fresh one by default). */
export function createOperatorMetrics(registry: Registry = new Registry()): OperatorMetrics {
  const registers = [registry];
  const phase = new Gauge({
    name: 'gatehouse_operator_authconfig_phase',
    help: 'Current API_AUTH_MODE rollout phase of each AuthConfig (0 disabled, 1 warn, 2 enforce, 3 enforce soaked).',
    labelNames: ['namespace', 'name'] as const,
    registers,
  });
  const desiredPhase = new Gauge({
    name: 'gatehouse_operator_authconfig_desired_phase',
    help: 'API_AUTH_MODE phase each AuthConfig asks for (0 disabled, 1 warn, 2 enforce; a requested rollback asks for 0).',
    labelNames: ['namespace', 'name'] as const,
    registers,
  });
  const automaticPromotion = new Gauge({
    name: 'gatehouse_operator_authconfig_automatic_promotion',
    help: 'Whether the operator promotes each AuthConfig on its own (1) or waits for a human (0: paused or off).',
    labelNames: ['namespace', 'name'] as const,
    registers,
  });
  const transitions = new Counter({
    name: 'gatehouse_operator_rollout_transitions_total',
    help: 'API_AUTH_MODE rollout transitions, by AuthConfig, from, to and reason.',
    labelNames: ['namespace', 'name', 'from', 'to', 'reason'] as const,
    registers,
  });
  return {
    registry,
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'] as const,
      registers,
    }),
    queueDepth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    queueAdds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    queueRetries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'] as const,
      registers,
    }),
    leaderStatus: new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'] as const,
      registers,
    }),
    watchRestarts: new Counter({
      name: 'gatehouse_operator_watch_restarts_total',
      help: 'Watches restarted with a relist, by resource and reason (gone, ended, error, watchdog).',
      labelNames: ['resource', 'reason'] as const,
      registers,
    }),
    setPhase(key, value) {
      phase.set({ namespace: key.namespace, name: key.name }, value);
    },
    setIntent(key, intent) {
      const labels = { namespace: key.namespace, name: key.name };
      desiredPhase.set(labels, intent.desiredPhase);
      automaticPromotion.set(labels, intent.automaticPromotion ? 1 : 0);
    },
    recordTransition(key, { from, to, reason }) {
      transitions.inc({ namespace: key.namespace, name: key.name, from, to, reason });
    },
    forget(key) {
      phase.remove({ namespace: key.namespace, name: key.name });
      desiredPhase.remove({ namespace: key.namespace, name: key.name });
      automaticPromotion.remove({ namespace: key.namespace, name: key.name });
    },
  };
}
