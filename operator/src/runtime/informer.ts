/**
 * List-then-watch for one resource, with a relist on 410 Gone and a watchdog for silent watches
 * (operator/README.md, "Runtime"). Like client-go's reflector: list, remember the list's resourceVersion, watch
 * from it, keep a cache by key. Whenever a watch ends — 410 Gone, an ERROR event, a dropped connection, the
 * server's `timeoutSeconds`, or the watchdog — it lists again and tells the owner about every object, so an event
 * lost in between is covered by the level-based reconcile of everything (the relist doubles as a periodic
 * resync).
 *
 * The watchdog: a watch that has sent nothing for `watchdogMs` is aborted and restarted. A stalled watch (a proxy
 * that keeps the TCP connection and forwards nothing) otherwise looks healthy for ever.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import { keyOf } from './work-queue.ts';
import { describeError, silentLogger, statusCodeOf, type RuntimeLogger } from './logger.ts';
import type { OperatorMetrics } from './metrics.ts';

/** The parts of a Kubernetes object the informer reads. */
export interface WatchedObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  [field: string]: unknown;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ListResult {
  items: WatchedObject[];
  resourceVersion: string;
}

export interface InformerOptions {
  kubeConfig: KubeConfig;
  /** A short name for logs and metrics (`authconfigs`, `deployments`). */
  resource: string;
  /** Lists every object (across the watched namespaces) with the list's resourceVersion. */
  list: () => Promise<ListResult>;
  /** The collection path to watch, e.g. `/apis/gatehouse.dev/v1alpha1/authconfigs`. */
  watchPath: string;
  /**
   * What is kept of each object, applied before it is cached or handed on (client-go's transform): Secrets are
   * cached without their data, so no secret value stays in the operator's memory.
   */
  transform?: (object: WatchedObject) => WatchedObject;
  /** Called for each watch event, after the cache is updated. */
  onEvent: (type: WatchEventType, object: WatchedObject) => void;
  /** Called after each (re)list with the objects listed and the keys of those gone since the last list. */
  onList: (objects: readonly WatchedObject[], removedKeys: readonly string[]) => void;
  /** A watch silent for this long is restarted. */
  watchdogMs: number;
  /** The server ends each watch after this long (client-go uses 5–10 min, randomised). */
  watchTimeoutSeconds?: () => number;
  /** Delay before listing again after a failed list, by consecutive failure. */
  retryDelayMs?: (failures: number) => number;
  metrics: OperatorMetrics;
  log?: RuntimeLogger;
}

type WatchEnd = 'gone' | 'error' | 'ended' | 'watchdog' | 'stopped';

export class Informer {
  private readonly options: InformerOptions;
  private readonly log: RuntimeLogger;
  private readonly objects = new Map<string, WatchedObject>();
  private stopped = false;
  private synced = false;
  private stopCurrent: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly syncWaiters: Array<() => void> = [];

  constructor(options: InformerOptions) {
    this.options = options;
    this.log = options.log ?? silentLogger;
  }

  /** Starts listing and watching in the background. */
  start(): void {
    this.loop ??= this.run();
  }

  /** True once the first list has been delivered. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves after the first list. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  /** The cached objects, by `namespace/name`. */
  get cache(): ReadonlyMap<string, WatchedObject> {
    return this.objects;
  }

  /** Closes the watch; resolves when the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopCurrent?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    let listFailures = 0;
    while (!this.stopped) {
      let listed: ListResult;
      try {
        listed = await this.options.list();
      } catch (error) {
        listFailures += 1;
        const delay = (this.options.retryDelayMs ?? defaultRetryDelay)(listFailures);
        this.log.warn(
          { resource: this.options.resource, retryInMs: delay, ...describeError(error) },
          'list failed',
        );
        await this.sleep(delay);
        continue;
      }
      listFailures = 0;
      if (this.stopped) return;
      const transform = this.options.transform;
      this.replaceCache(transform ? listed.items.map(transform) : listed.items);
      if (!this.synced) {
        this.synced = true;
        for (const wake of this.syncWaiters.splice(0)) wake();
      }
      const end = await this.watch(listed.resourceVersion);
      if (end === 'stopped') return;
      this.options.metrics.watchRestarts.inc({ resource: this.options.resource, reason: end });
      this.log.info({ resource: this.options.resource, reason: end }, 'watch ended; relisting');
      // A watch refused at once (an error, not a timeout) must not turn into a tight loop against the server.
      if (end === 'error') await this.sleep((this.options.retryDelayMs ?? defaultRetryDelay)(1));
    }
  }

  private replaceCache(items: readonly WatchedObject[]): void {
    const previous = new Set(this.objects.keys());
    this.objects.clear();
    for (const item of items) {
      const key = objectKey(item);
      if (key === undefined) continue;
      this.objects.set(key, item);
      previous.delete(key);
    }
    this.options.onList(items, [...previous]);
  }

  /** One watch from `resourceVersion`, until it ends for any reason. */
  private watch(resourceVersion: string): Promise<WatchEnd> {
    const { kubeConfig, watchPath, watchdogMs, onEvent } = this.options;
    return new Promise<WatchEnd>((resolve) => {
      let finished = false;
      let controller: AbortController | undefined;
      let watchdog: NodeJS.Timeout | undefined;
      const finish = (end: WatchEnd): void => {
        if (finished) return;
        finished = true;
        clearTimeout(watchdog);
        this.stopCurrent = undefined;
        controller?.abort();
        resolve(end);
      };
      const arm = (): void => {
        clearTimeout(watchdog);
        watchdog = setTimeout(() => {
          this.log.warn(
            { resource: this.options.resource, silentForMs: watchdogMs },
            'watch silent; restarting',
          );
          finish('watchdog');
        }, watchdogMs);
      };
      this.stopCurrent = () => finish('stopped');
      arm();
      const client = new Watch(kubeConfig);
      // The client aborts a watch after 30 s without data on its own; the watchdog is the one in charge of
      // silent watches (a quiet cluster can go minutes without a change), so its own timer must not fire first.
      (client as unknown as { requestTimeoutMs: number }).requestTimeoutMs = watchdogMs + 30_000;
      const timeoutSeconds = (this.options.watchTimeoutSeconds ?? defaultWatchTimeoutSeconds)();
      client
        .watch(
          watchPath,
          { resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
          (type: string, received: WatchedObject) => {
            if (finished) return;
            const object =
              this.options.transform && type !== 'ERROR' ? this.options.transform(received) : received;
            arm();
            if (type === 'ERROR') {
              const code = (object as { code?: unknown }).code;
              finish(code === 410 ? 'gone' : 'error');
              return;
            }
            if (type === 'BOOKMARK') return;
            if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
            const key = objectKey(object);
            if (key === undefined) return;
            if (type === 'DELETED') this.objects.delete(key);
            else this.objects.set(key, object);
            onEvent(type, object);
          },
          (error: unknown) => {
            if (finished) return;
            if (error) {
              this.log.debug({ resource: this.options.resource, ...describeError(error) }, 'watch closed');
            }
            const code = statusCodeOf(error);
            finish(code === 410 ? 'gone' : error ? 'error' : 'ended');
          },
        )
        .then(
          (abort) => {
            controller = abort;
            if (finished) abort.abort();
          },
          (error: unknown) => {
            this.log.warn({ resource: this.options.resource, ...describeError(error) }, 'watch failed');
            finish('error');
          },
        );
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.stopCurrent = undefined;
        resolve();
      }, ms);
      this.stopCurrent = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** `namespace/name`, the work-queue key of an object. */
export function objectKey(object: WatchedObject): string | undefined {
  const name = object.metadata?.name;
  if (!name) return undefined;
  return keyOf({ namespace: object.metadata?.namespace ?? '', name });
}

function defaultRetryDelay(failures: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(failures - 1, 10));
}

function defaultWatchTimeoutSeconds(): number {
  return Math.floor(300 + Math.random() * 300);
}
