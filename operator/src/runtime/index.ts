export { OPERATOR_USAGE, runOperatorCommand, type OperatorCommandDeps } from './command.ts';
export { CONTROLLER_NAME, startController, type Controller, type ControllerOptions } from './controller.ts';
export { startHealthServer, type HealthServer } from './health-server.ts';
export { Informer, type InformerOptions, type WatchedObject } from './informer.ts';
export {
  DEFAULT_LEADER_TIMINGS,
  LeaderElector,
  type LeaderElectionTimings,
  type LeaderElectorOptions,
} from './leader-election.ts';
export { silentLogger, type RuntimeLogger } from './logger.ts';
export { createOperatorMetrics, type OperatorMetrics, type RolloutMetrics } from './metrics.ts';
export {
  DEFAULT_PORT,
  DEFAULT_WATCHDOG_MS,
  LEASE_NAME,
  startOperator,
  type OperatorOptions,
  type ReconcilerContext,
  type RunningOperator,
} from './operator.ts';
export { backoffDelay, DEFAULT_BACKOFF, WorkQueue, type BackoffOptions } from './work-queue.ts';
