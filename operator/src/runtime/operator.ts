/**
 * The operator process (operator/README.md, "Runtime"): the health/metrics server, leader election, and — on the
 * leader only — the AuthConfig controller (informers and work queue).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../../gateway/src/operator-api.ts';
import type { Reconciler } from '../reconcile/types.ts';
import { startController, type Controller } from './controller.ts';
import { startHealthServer } from './health-server.ts';
import { LeaderElector, type LeaderElectionTimings } from './leader-election.ts';
import { silentLogger, type RuntimeLogger } from './logger.ts';
import { createOperatorMetrics, type OperatorMetrics, type RolloutMetrics } from './metrics.ts';
import type { BackoffOptions } from './work-queue.ts';

/** The Lease of operator/deploy/rbac.yaml. */
export const LEASE_NAME = 'gatehouse-operator';
export const DEFAULT_PORT = 8081;
/** A watch silent this long is restarted (a real API server sends bookmarks about once a minute). */
export const DEFAULT_WATCHDOG_MS = 5 * 60_000;

/** What a reconciler factory is given: the metrics it reports the rollout through. */
export interface ReconcilerContext {
  metrics: RolloutMetrics;
}

export interface OperatorOptions {
  kubeConfig: KubeConfig;
  /** The operator's own namespace: where the Lease lives. */
  namespace: string;
  /** This replica's identity in the Lease (the pod name). */
  identity: string;
  /** The reconciler, or a factory given the rollout metrics to report to. */
  reconciler: Reconciler | ((context: ReconcilerContext) => Reconciler);
  clock?: Clock;
  /** The /healthz, /readyz and /metrics port (default 8081; 0 for an ephemeral one). */
  port?: number;
  host?: string;
  leaseName?: string;
  leaderElection?: LeaderElectionTimings;
  watchdogMs?: number;
  /** Seconds after which the server ends each watch (randomised 300–600 by default). */
  watchTimeoutSeconds?: () => number;
  /** Watch one namespace only (every namespace by default). */
  watchNamespace?: string;
  watchDeployments?: boolean;
  /** Watch the Secrets the gateway's pods read (default true). */
  watchSecrets?: boolean;
  concurrency?: number;
  backoff?: BackoffOptions;
  metrics?: OperatorMetrics;
  log?: RuntimeLogger;
}

export interface RunningOperator {
  /** The port the health/metrics server listens on. */
  readonly port: number;
  readonly metrics: OperatorMetrics;
  readonly isLeader: boolean;
  /**
   * Graceful shutdown: stops the informers, lets the reconciles in flight finish, releases the Lease (unless
   * `releaseLease: false`, which leaves it to expire as a crash would) and closes the server.
   */
  stop(options?: { releaseLease?: boolean }): Promise<void>;
}

export async function startOperator(options: OperatorOptions): Promise<RunningOperator> {
  const log = options.log ?? silentLogger;
  const metrics = options.metrics ?? createOperatorMetrics();
  const reconciler =
    typeof options.reconciler === 'function' ? options.reconciler({ metrics }) : options.reconciler;
  const leaseName = options.leaseName ?? LEASE_NAME;
  let controller: Controller | undefined;

  const elector = new LeaderElector({
    kubeConfig: options.kubeConfig,
    namespace: options.namespace,
    leaseName,
    identity: options.identity,
    ...(options.leaderElection === undefined ? {} : { timings: options.leaderElection }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    log,
    onStartedLeading: () => {
      metrics.leaderStatus.set({ name: leaseName }, 1);
      controller = startController({
        kubeConfig: options.kubeConfig,
        reconciler,
        metrics,
        watchdogMs: options.watchdogMs ?? DEFAULT_WATCHDOG_MS,
        ...optional('watchNamespace', options.watchNamespace),
        ...optional('watchTimeoutSeconds', options.watchTimeoutSeconds),
        ...optional('watchDeployments', options.watchDeployments),
        ...optional('watchSecrets', options.watchSecrets),
        ...optional('concurrency', options.concurrency),
        ...optional('backoff', options.backoff),
        log,
      });
    },
    onStoppedLeading: async () => {
      metrics.leaderStatus.set({ name: leaseName }, 0);
      const stopping = controller;
      controller = undefined;
      await stopping?.stop();
    },
  });
  metrics.leaderStatus.set({ name: leaseName }, 0);

  const server = await startHealthServer({
    port: options.port ?? DEFAULT_PORT,
    ...optional('host', options.host),
    registry: metrics.registry,
    readiness: () => {
      if (!elector.isLeader) return { ready: true, detail: 'standby (not the leader)' };
      if (controller?.synced) return { ready: true, detail: 'leader, informers synced' };
      return { ready: false, detail: 'leader, informers not synced yet' };
    },
  });
  elector.start();
  log.info({ identity: options.identity, port: server.port, lease: leaseName }, 'operator started');

  let stopping: Promise<void> | undefined;
  return {
    port: server.port,
    metrics,
    get isLeader() {
      return elector.isLeader;
    },
    stop({ releaseLease = true } = {}) {
      stopping ??= (async () => {
        await elector.stop({ release: releaseLease });
        await server.close();
        log.info({ identity: options.identity }, 'operator stopped');
      })();
      return stopping;
    },
  };
}

/** `{ [name]: value }`, or nothing when the value is undefined (exactOptionalPropertyTypes-friendly). */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [P in K]?: V });
}
