import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { ResyncReason } from '../domain/messages.ts';
import { eventStore, type StoredEvent } from '../store/event-store.ts';
import type { EventFeed } from './event-feed.ts';

/** Rows one replay query reads. */
const REPLAY_CHUNK = 1_000;
/** How long a client that has seen more than this replica is given for the replica to catch up. */
const CATCH_UP_WAIT_MS = 5_000;

export type ReplayOutcome = { replayed: number } | { resync: ResyncReason };

/**
 * Brings a socket up to date, then lets it in (ADR 0009, "Replay"): every event after `after` sent to any
 * of `rooms`, in id order, up to the feed's watermark, and then `join` runs in the same turn of the event
 * loop as the last check of the watermark, so the first live event the socket gets is the one after the
 * last replayed: none twice, none missed. When the gap cannot be replayed (pruned, too large, or an id
 * this log never had), `join` runs all the same and the outcome says why the client must resync.
 */
export async function replayThenJoin(
  deps: { db: Queryable; feed: EventFeed; maxEvents: number },
  request: {
    after: number | undefined;
    rooms: readonly string[];
    emit(event: StoredEvent): void;
    join(): void;
    /** False once the socket is gone: the replay stops. */
    alive(): boolean;
  },
): Promise<ReplayOutcome> {
  const { feed } = deps;
  const problem = request.after === undefined ? null : await whyNotReplayable(deps, request.after);
  if (request.after === undefined || problem !== null) {
    request.join();
    return problem === null ? { replayed: 0 } : { resync: problem };
  }
  let cursor = request.after;
  let replayed = 0;
  while (cursor < feed.watermark && request.alive()) {
    const upTo = feed.watermark;
    const events = await eventStore.replay(deps.db, { after: cursor, upTo }, request.rooms, REPLAY_CHUNK);
    for (const event of events) request.emit(event);
    replayed += events.length;
    cursor = events.length === REPLAY_CHUNK ? (events.at(-1) as StoredEvent).id : upTo;
  }
  request.join();
  return { replayed };
}

async function whyNotReplayable(
  deps: { db: Queryable; feed: EventFeed; maxEvents: number },
  after: number,
): Promise<ResyncReason | null> {
  if (after > deps.feed.watermark) {
    // Seen on a replica that is ahead of this one, or an id this log never had (another database).
    if (after > (await eventStore.maxId(deps.db))) return 'unknown';
    await deps.feed.reached(after, CATCH_UP_WAIT_MS);
  }
  if (after < (await eventStore.prunedThrough(deps.db))) return 'expired';
  if (deps.feed.watermark - after > deps.maxEvents) return 'too_many';
  return null;
}
