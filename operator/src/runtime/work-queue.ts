/**
 * The reconcile work queue: one object at a time per key, backoff on errors (operator/README.md, "Runtime"),
 * modelled on client-go's workqueue as controller-runtime uses it:
 *
 * - a key is processed by at most one worker at a time; a key added while it is processed is marked dirty and
 *   runs once more afterwards (so the change that arrived mid-reconcile is never lost), and a key added many
 *   times while waiting runs once (level-based: the reconciler reads the current state, not the events);
 * - up to `concurrency` different keys are reconciled in parallel;
 * - a reconcile that throws is retried after an exponential backoff with jitter, capped; success resets it;
 * - `requeueAfterMs` schedules the key again (the next rollout analysis) even without events.
 */
import type { ObjectKey, ReconcileResult } from '../reconcile/types.ts';
import { describeError, silentLogger, type RuntimeLogger } from './logger.ts';
import type { OperatorMetrics } from './metrics.ts';

export interface BackoffOptions {
  /** The first retry's delay, before jitter. */
  baseDelayMs: number;
  /** The cap: a key that keeps failing is retried this often. */
  maxDelayMs: number;
}

/** Defaults: 0.5 s, 1 s, 2 s, ... capped at 60 s (rollback must land in under 30 s once the API answers). */
export const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 500, maxDelayMs: 60_000 };

/**
 * The delay before retry number `failures` (1 for the first): `base * 2^(failures-1)`, capped, then "equal
 * jitter" (between half and all of it) so keys that failed together (an API server outage) do not retry in
 * lockstep.
 */
export function backoffDelay(failures: number, options: BackoffOptions, random: () => number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const delay = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** exponent);
  return delay / 2 + (random() * delay) / 2;
}

export interface WorkQueueOptions {
  /** The controller name: the `controller` and `name` labels of the metrics. */
  name: string;
  reconcile: (key: ObjectKey) => Promise<ReconcileResult>;
  metrics: OperatorMetrics;
  concurrency?: number;
  backoff?: BackoffOptions;
  /** For tests of the jitter; Math.random by default. */
  random?: () => number;
  log?: RuntimeLogger;
}

/** The queue key of an object: `namespace/name`. */
export function keyOf({ namespace, name }: ObjectKey): string {
  return `${namespace}/${name}`;
}

/** The object a queue key names: the inverse of `keyOf` (a namespace never contains a slash). */
export function parseKey(key: string): ObjectKey {
  const slash = key.indexOf('/');
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export class WorkQueue {
  private readonly options: Required<Omit<WorkQueueOptions, 'log'>> & { log: RuntimeLogger };
  /** Keys waiting for a worker, in order. */
  private readonly queue: string[] = [];
  /** Keys that need a reconcile (waiting, or added again while processing). */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<string, number>();
  private readonly idleWaiters: Array<() => void> = [];
  private stopping = false;

  constructor(options: WorkQueueOptions) {
    this.options = {
      ...options,
      concurrency: Math.max(1, options.concurrency ?? 2),
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      random: options.random ?? Math.random,
      log: options.log ?? silentLogger,
    };
    this.updateDepth();
  }

  /** Queues the key now (deduplicated; see the file comment). */
  add(key: ObjectKey): void {
    this.addKey(keyOf(key));
  }

  /** Queues the key after `delayMs`; an earlier pending schedule for it wins. */
  addAfter(key: ObjectKey, delayMs: number): void {
    this.addKeyAfter(keyOf(key), delayMs);
  }

  /** Keys waiting for a worker (the `workqueue_depth` gauge). */
  get depth(): number {
    return this.queue.length;
  }

  /**
   * Stops taking work: pending and delayed keys are dropped (the next leader relists everything) and the
   * promise resolves once the reconciles in flight have finished.
   */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue.length = 0;
    this.dirty.clear();
    this.updateDepth();
    while (this.processing.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private addKey(key: string): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.options.metrics.queueAdds.inc({ name: this.options.name });
    this.dirty.add(key);
    // A key being processed is re-queued when its worker finishes, never run twice at once.
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.updateDepth();
    this.pump();
  }

  private addKeyAfter(key: string, delayMs: number): void {
    if (this.stopping) return;
    if (delayMs <= 0) {
      this.addKey(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.addKey(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  private pump(): void {
    while (!this.stopping && this.processing.size < this.options.concurrency && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.dirty.delete(key);
      this.processing.add(key);
      this.updateDepth();
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    const { name, metrics, log } = this.options;
    metrics.activeWorkers.inc({ controller: name });
    const endTimer = metrics.reconcileTime.startTimer({ controller: name });
    try {
      const result = await this.options.reconcile(parseKey(key));
      this.failures.delete(key);
      const requeueAfterMs = result.requeueAfterMs;
      if (requeueAfterMs !== undefined && requeueAfterMs >= 0) {
        metrics.reconcileTotal.inc({ controller: name, result: 'requeue_after' });
        this.addKeyAfter(key, requeueAfterMs);
      } else {
        metrics.reconcileTotal.inc({ controller: name, result: 'success' });
      }
    } catch (error) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const delayMs = backoffDelay(failures, this.options.backoff, this.options.random);
      metrics.reconcileTotal.inc({ controller: name, result: 'error' });
      metrics.reconcileErrors.inc({ controller: name });
      metrics.queueRetries.inc({ name });
      log.warn(
        { key, failures, retryInMs: Math.round(delayMs), ...describeError(error) },
        'reconcile failed',
      );
      this.addKeyAfter(key, delayMs);
    } finally {
      endTimer();
      metrics.activeWorkers.dec({ controller: name });
      this.processing.delete(key);
      if (this.dirty.has(key) && !this.stopping) this.queue.push(key);
      this.updateDepth();
      if (this.processing.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      this.pump();
    }
  }

  private updateDepth(): void {
    this.options.metrics.queueDepth.set({ name: this.options.name }, this.queue.length);
  }
}
