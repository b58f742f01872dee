import {
  type Clock,
  type Database,
  type Listener,
  type Logger,
  listen,
} from '../../../../gateway/src/plugin-api.ts';
import { eventStore, type StoredEvent } from '../store/event-store.ts';

/** The channel the triggers announce events on (migrations/realtime). */
export const EVENTS_CHANNEL = 'service_events';
/** Rows one read takes; a larger backlog is read in several, back to back. */
const READ_BATCH = 1_000;
/** A hole is looked at again after this long, doubling to the cap, until its writers have finished. */
const HOLE_RETRY_MS = { first: 5, max: 1_000 };
/** A read every so often even without a NOTIFY: a safety net that costs one index probe. */
const SAFETY_READ_MS = 5_000;

export interface EventFeed {
  /** Every event with an id up to here has been delivered, or is known never to exist (ADR 0009). */
  readonly watermark: number;
  readonly connected: boolean;
  readonly reconnects: number;
  readonly lastNotifyAt: Date | null;
  /** Events this replica delivered since it started. */
  readonly delivered: number;
  /** Resolves once the watermark has reached `id`, or after `timeoutMs` (false then). */
  reached(id: number, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** An id missing from the log, and the transactions that might still write it (ADR 0009, "Holes"). */
interface Hole {
  id: number;
  writers: Set<string>;
  /** Set once none of `writers` is running any more: the next read decides the hole for good. */
  settled: boolean;
  retryMs: number;
}

/**
 * The one listener of this replica (ADR 0009): LISTEN on service_events over a dedicated connection, and on
 * every wake-up read the log after the watermark, in id order, one query per burst, and hand the events to
 * `deliver` in order. After a reconnect it reads the same way, so what was committed while it was down is
 * delivered too. An id it has not seen is never skipped while a transaction that may still commit it runs.
 */
export async function startEventFeed(options: {
  db: Database;
  logger: Logger;
  clock: Clock;
  heartbeatMs: number;
  deliver(events: readonly StoredEvent[]): void;
  onConnectionChange?(connected: boolean): void;
}): Promise<EventFeed> {
  const { db, logger } = options;
  let watermark = await startingWatermark(db);
  let hole: Hole | null = null;
  let delivered = 0;
  let lastNotifyAt: Date | null = null;
  let stopped = false;
  let reading: Promise<void> | null = null;
  let again = false;
  let holeTimer: NodeJS.Timeout | undefined;
  const waiters = new Set<{ id: number; resolve(ok: boolean): void }>();

  /** Reads and delivers until the log is drained or a hole stops it. */
  const readOnce = async (): Promise<boolean> => {
    if (hole && !hole.settled && !overlaps(hole.writers, await eventStore.writers(db))) hole.settled = true;
    const events = await eventStore.after(db, watermark, READ_BATCH);
    const ready: StoredEvent[] = [];
    for (const event of events) {
      if (event.id !== watermark + 1) {
        if (hole?.settled && hole.id === watermark + 1) {
          logger.debug({ from: watermark + 1, to: event.id - 1 }, 'realtime: ids never committed, skipped');
        } else {
          if (hole?.id !== watermark + 1) {
            hole = { id: watermark + 1, writers: await eventStore.writers(db), settled: false, retryMs: 0 };
          }
          break;
        }
      }
      ready.push(event);
      watermark = event.id;
    }
    if (hole && watermark >= hole.id) hole = null;
    if (ready.length > 0) {
      delivered += ready.length;
      options.deliver(ready);
      for (const waiter of waiters) if (waiter.id <= watermark) waiter.resolve(true);
    }
    return events.length === READ_BATCH && ready.length === events.length;
  };

  const read = () => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          if (await readOnce()) again = true;
        } catch (err) {
          logger.warn({ err: { message: (err as Error).message } }, 'realtime: reading the event log failed');
          again = false;
        }
      } while (again && !stopped);
    })().finally(() => {
      reading = null;
      scheduleHoleCheck();
    });
  };

  const scheduleHoleCheck = () => {
    if (!hole || stopped || holeTimer) return;
    hole.retryMs = Math.min(Math.max(hole.retryMs * 2, HOLE_RETRY_MS.first), HOLE_RETRY_MS.max);
    holeTimer = setTimeout(() => {
      holeTimer = undefined;
      read();
    }, hole.retryMs);
    holeTimer.unref();
  };

  const listener: Listener = await listen({
    db,
    logger,
    channels: [EVENTS_CHANNEL],
    heartbeatMs: options.heartbeatMs,
    onNotify() {
      lastNotifyAt = options.clock.now();
      read();
    },
    onConnected() {
      options.onConnectionChange?.(true);
      read();
    },
    onDisconnected() {
      options.onConnectionChange?.(false);
    },
  });
  const safety = setInterval(read, SAFETY_READ_MS);
  safety.unref();

  return {
    get watermark() {
      return watermark;
    },
    get connected() {
      return listener.connected;
    },
    get reconnects() {
      return listener.reconnects;
    },
    get lastNotifyAt() {
      return lastNotifyAt;
    },
    get delivered() {
      return delivered;
    },
    reached(id, timeoutMs) {
      if (watermark >= id) return Promise.resolve(true);
      return new Promise((resolve) => {
        const waiter = {
          id,
          resolve: (ok: boolean) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
        waiters.add(waiter);
      });
    },
    async stop() {
      stopped = true;
      clearInterval(safety);
      clearTimeout(holeTimer);
      for (const waiter of waiters) waiter.resolve(false);
      await listener.stop();
      await reading;
    },
  };
}

/**
 * Where a starting replica begins: the newest id, once every transaction that might still commit an older
 * one has ended. Those events are not delivered live (no socket is connected yet), but a client's replay
 * reads the log and finds them (ADR 0009, "Starting").
 */
async function startingWatermark(db: Database): Promise<number> {
  const newest = await eventStore.maxId(db);
  const writers = await eventStore.writers(db);
  for (let waitMs = 5; writers.size > 0 && overlaps(writers, await eventStore.writers(db));) {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    waitMs = Math.min(waitMs * 2, 500);
  }
  return newest;
}

function overlaps(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const item of a) if (b.has(item)) return true;
  return false;
}
