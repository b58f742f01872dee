/**
 * Leader election on a `coordination.k8s.io/v1` Lease, so two replicas never both act (operator/README.md,
 * "Runtime"), the algorithm of client-go's leaderelection package:
 *
 * - A candidate takes the Lease when it has no holder, or when the holder has not renewed it for
 *   `leaseDurationSeconds` **as observed on the candidate's own clock** (the time it last saw the Lease change),
 *   so clock skew between nodes cannot make a live leader look expired.
 * - The leader renews every `retryPeriodMs`. When it has not managed to renew for `renewDeadlineMs` it steps down
 *   (stops its controllers) before anyone else may take over: renewDeadline < leaseDuration is the margin that
 *   keeps two leaders from acting at once.
 * - Every write is a PUT with the resourceVersion read, so a race between candidates is a 409 for all but one;
 *   the loser re-reads.
 * - On graceful shutdown the leader clears `holderIdentity`, so a standby takes over at its next retry instead of
 *   waiting for the lease to expire.
 */
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { systemClock, type Clock } from '../../../gateway/src/operator-api.ts';
import { describeError, silentLogger, statusCodeOf, type RuntimeLogger } from './logger.ts';

export interface LeaderElectionTimings {
  /** How long a Lease not renewed stays taken. */
  leaseDurationMs: number;
  /** A leader that could not renew for this long steps down. Must be below leaseDurationMs. */
  renewDeadlineMs: number;
  /** How often candidates try to acquire and the leader renews. */
  retryPeriodMs: number;
}

/** controller-runtime's defaults: 15 s lease, 10 s renew deadline, 2 s retry. */
export const DEFAULT_LEADER_TIMINGS: LeaderElectionTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

export interface LeaderElectorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  leaseName: string;
  identity: string;
  timings?: LeaderElectionTimings;
  clock?: Clock;
  /** Called when this process becomes the leader. */
  onStartedLeading: () => void;
  /** Called when it stops being the leader (renewal failed past the deadline, or shutdown); awaited. */
  onStoppedLeading: () => Promise<void>;
  log?: RuntimeLogger;
}

export class LeaderElector {
  private readonly options: LeaderElectorOptions;
  private readonly api: CoordinationV1Api;
  private readonly timings: LeaderElectionTimings;
  private readonly clock: Clock;
  private readonly log: RuntimeLogger;
  private leading = false;
  private stopped = false;
  private lastRenewMs = 0;
  /** The Lease's resourceVersion last seen, and when (our clock): the expiry is measured from then. */
  private observed: { resourceVersion: string; atMs: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
    this.timings = options.timings ?? DEFAULT_LEADER_TIMINGS;
    if (this.timings.renewDeadlineMs >= this.timings.leaseDurationMs) {
      throw new Error('leader election: renewDeadlineMs must be below leaseDurationMs');
    }
    this.clock = options.clock ?? systemClock;
    this.log = options.log ?? silentLogger;
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts campaigning; the first attempt is immediate. */
  start(): void {
    this.schedule(0);
  }

  /**
   * Stops campaigning and renewing. With `release` (graceful shutdown), a leader first stops its controllers
   * and then clears the Lease's holder; without it (a simulated crash) the Lease is left to expire.
   */
  async stop({ release = true }: { release?: boolean } = {}): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
    await this.stepDown('shutdown');
    // Even when not leading: an attempt that won the Lease while stopping must not leave it held.
    if (release) await this.release();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule(this.timings.retryPeriodMs);
      });
    }, delayMs);
  }

  private async tick(): Promise<void> {
    const ok = await this.tryAcquireOrRenew();
    if (this.stopped) return;
    const now = this.clock.nowMs();
    if (ok) {
      this.lastRenewMs = now;
      if (!this.leading) {
        this.leading = true;
        this.log.info({ identity: this.options.identity, lease: this.options.leaseName }, 'became leader');
        this.options.onStartedLeading();
      }
      return;
    }
    if (this.leading && now - this.lastRenewMs >= this.timings.renewDeadlineMs) {
      this.log.error(
        { identity: this.options.identity, sinceRenewMs: now - this.lastRenewMs },
        'could not renew the lease before the deadline; stepping down',
      );
      await this.stepDown('renew deadline passed');
    }
  }

  private async stepDown(reason: string): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    this.log.info({ identity: this.options.identity, reason }, 'stopped leading');
    await this.options.onStoppedLeading();
  }

  /** One attempt; a 409 (another candidate wrote first) is re-read and retried once at once. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await this.acquireOrRenewOnce();
      } catch (error) {
        if (statusCodeOf(error) === 409) continue;
        this.log.warn({ lease: this.options.leaseName, ...describeError(error) }, 'lease request failed');
        return false;
      }
    }
    return false;
  }

  private async acquireOrRenewOnce(): Promise<boolean> {
    const { namespace, leaseName: name, identity } = this.options;
    const now = this.clock.nowMs();
    const spec = {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.timings.leaseDurationMs / 1000)),
      acquireTime: new V1MicroTime(now),
      renewTime: new V1MicroTime(now),
      leaseTransitions: 0,
    };
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (statusCodeOf(error) !== 404) throw error;
      await this.api.createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec } });
      this.observed = undefined;
      return true;
    }
    const resourceVersion = lease.metadata?.resourceVersion ?? '';
    if (this.observed?.resourceVersion !== resourceVersion) this.observed = { resourceVersion, atMs: now };
    const current = lease.spec ?? {};
    const holder = current.holderIdentity ?? '';
    const durationMs = (current.leaseDurationSeconds ?? spec.leaseDurationSeconds) * 1000;
    if (holder !== '' && holder !== identity && now < this.observed.atMs + durationMs) return false;
    const transition = holder !== identity;
    const updated = await this.api.replaceNamespacedLease({
      name,
      namespace,
      body: {
        ...lease,
        spec: {
          ...current,
          ...spec,
          acquireTime: transition ? spec.acquireTime : (current.acquireTime ?? spec.acquireTime),
          leaseTransitions: (current.leaseTransitions ?? 0) + (transition && holder !== '' ? 1 : 0),
        },
      },
    });
    this.observed = { resourceVersion: updated.metadata?.resourceVersion ?? '', atMs: now };
    return true;
  }

  /** Clears the holder if it is still us (client-go's ReleaseOnCancel). */
  private async release(): Promise<void> {
    const { namespace, leaseName: name, identity } = this.options;
    try {
      const lease = await this.api.readNamespacedLease({ name, namespace });
      if (lease.spec?.holderIdentity !== identity) return;
      const spec = { ...lease.spec };
      delete spec.holderIdentity;
      await this.api.replaceNamespacedLease({
        name,
        namespace,
        body: {
          ...lease,
          spec: { ...spec, leaseDurationSeconds: 1, renewTime: new V1MicroTime(this.clock.nowMs()) },
        },
      });
      this.log.info({ identity, lease: name }, 'released the lease');
    } catch (error) {
      this.log.warn({ lease: name, ...describeError(error) }, 'could not release the lease');
    }
  }
}
