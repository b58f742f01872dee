import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/** One row of realtime_events as the feed and the replay read it. */
export interface StoredEvent {
  id: number;
  type: string;
  rooms: string[];
  payload: unknown;
  createdAt: Date;
}

interface EventRow {
  id: string;
  type: string;
  rooms: string[];
  payload: unknown;
  created_at: Date;
}

const toEvent = (row: EventRow): StoredEvent => ({
  id: Number(row.id),
  type: row.type,
  rooms: row.rooms,
  payload: row.payload,
  createdAt: row.created_at,
});

/** The append-only event log that the triggers of migrations/realtime write (ADR 0009). */
export const eventStore = {
  /** The events after `after`, in id order: what the feed delivers next. */
  async after(db: Queryable, after: number, limit: number): Promise<StoredEvent[]> {
    const { rows } = await db.query<EventRow>(
      'SELECT id, type, rooms, payload, created_at FROM realtime_events WHERE id > $1 ORDER BY id LIMIT $2',
      [after, limit],
    );
    return rows.map(toEvent);
  },

  /** The events in (after, upTo] sent to any of `rooms`, in id order: a replay. */
  async replay(
    db: Queryable,
    range: { after: number; upTo: number },
    rooms: readonly string[],
    limit: number,
  ): Promise<StoredEvent[]> {
    const { rows } = await db.query<EventRow>(
      `SELECT id, type, rooms, payload, created_at FROM realtime_events
        WHERE id > $1 AND id <= $2 AND rooms && $3::text[] ORDER BY id LIMIT $4`,
      [range.after, range.upTo, rooms, limit],
    );
    return rows.map(toEvent);
  },

  /** The highest id the log has held: its newest row's, or the last pruned one's when pruning emptied it. */
  async maxId(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ id: string }>(
      `SELECT greatest((SELECT max(id) FROM realtime_events), (SELECT pruned_through FROM realtime_retention), 0) AS id`,
    );
    return Number(rows[0]?.id ?? 0);
  },

  /**
   * The transactions that may still be writing events: those holding the lock every INSERT into
   * realtime_events takes before it draws an id, in this database. An id missing from the log belongs to
   * one of them, or to a transaction that rolled back (ADR 0009, "Holes").
   */
  async writers(db: Queryable): Promise<Set<string>> {
    const { rows } = await db.query<{ vxid: string }>(
      `SELECT DISTINCT virtualtransaction AS vxid FROM pg_locks
        WHERE locktype = 'relation' AND mode = 'RowExclusiveLock'
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND relation = 'realtime_events'::regclass AND pid IS DISTINCT FROM pg_backend_pid()`,
    );
    return new Set(rows.map((row) => row.vxid));
  },

  /** Every id at or below this one has been pruned. */
  async prunedThrough(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ id: string }>('SELECT pruned_through AS id FROM realtime_retention');
    return Number(rows[0]?.id ?? 0);
  },

  /**
   * Deletes up to `limit` of the oldest events created before `cutoff`, stopping at the first younger one so
   * that what is left is always a suffix of the log, and records how far the log is pruned; the number
   * deleted.
   */
  async prune(db: Queryable, cutoff: Date, limit: number): Promise<number> {
    const { rows } = await db.query<{ deleted: string }>(
      `WITH head AS (
         SELECT id, created_at FROM realtime_events ORDER BY id LIMIT $2
       ), stop AS (
         SELECT min(id) AS id FROM head WHERE created_at >= $1
       ), doomed AS (
         DELETE FROM realtime_events e USING head, stop
          WHERE e.id = head.id AND head.created_at < $1 AND (stop.id IS NULL OR head.id < stop.id)
         RETURNING e.id
       ), mark AS (
         UPDATE realtime_retention SET pruned_through = greatest(pruned_through, (SELECT max(id) FROM doomed))
          WHERE EXISTS (SELECT 1 FROM doomed)
       )
       SELECT count(*) AS deleted FROM doomed`,
      [cutoff, limit],
    );
    return Number(rows[0]?.deleted ?? 0);
  },
};
