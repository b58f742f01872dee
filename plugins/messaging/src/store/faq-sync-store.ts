import type pg from 'pg';
import type { Database, Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { FaqConflict, FaqSyncRun, UpstreamItem } from '../domain/faq-schemas.ts';
import type { SyncCounts } from '../domain/faq-sync-plan.ts';
import { toFaqEntry } from './faq-store.ts';

/**
 * The FAQ sync's tables (migrations/messaging/0007): its runs, the conflicts it records, the ETag it sends
 * back, and the lock that lets one run at a time across replicas (README, "FAQ", "Synchronisation").
 */

/** The advisory lock key of the FAQ sync (any constant no other lock of the database uses). */
const SYNC_LOCK_KEY = 7_020_001;

interface RunRow {
  id: string;
  trigger: 'manual' | 'schedule';
  status: FaqSyncRun['status'];
  etag: string | null;
  created: number;
  updated: number;
  archived: number;
  conflicts: number;
  unchanged: number;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

const RUN_COLUMNS = `id, trigger, status, etag, created, updated, archived, conflicts, unchanged, error, started_at,
  finished_at`;

function toRun(row: RunRow): FaqSyncRun {
  return {
    id: row.id,
    trigger: row.trigger,
    status: row.status,
    etag: row.etag,
    created: row.created,
    updated: row.updated,
    archived: row.archived,
    conflicts: row.conflicts,
    unchanged: row.unchanged,
    error: row.error,
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

export interface RunEnd {
  status: 'succeeded' | 'not_modified' | 'failed';
  etag: string | null;
  counts?: SyncCounts;
  error?: string;
}

export const faqSyncStore = {
  /**
   * Runs `work` holding the sync's session-level advisory lock on a connection of its own, so no transaction
   * stays open across the upstream fetch; a replica that dies mid-run drops its connection and the lock with
   * it. Null when another run holds the lock.
   */
  async withSyncLock<T>(db: Database, work: () => Promise<T>): Promise<{ value: T } | null> {
    const client: pg.PoolClient = await db.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        SYNC_LOCK_KEY,
      ]);
      if (!rows[0]?.locked) return null;
      try {
        return { value: await work() };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SYNC_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  },

  async startRun(db: Queryable, trigger: 'manual' | 'schedule', now: Date): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO messaging_faq_sync_runs (trigger, status, started_at) VALUES ($1, 'running', $2) RETURNING id`,
      [trigger, now],
    );
    return (rows[0] as { id: string }).id;
  },

  async finishRun(db: Queryable, id: string, end: RunEnd, now: Date): Promise<FaqSyncRun> {
    const counts = end.counts ?? { created: 0, updated: 0, archived: 0, conflicts: 0, unchanged: 0 };
    const { rows } = await db.query<RunRow>(
      `UPDATE messaging_faq_sync_runs
          SET status = $2, etag = $3, created = $4, updated = $5, archived = $6, conflicts = $7, unchanged = $8,
              error = $9, finished_at = $10
        WHERE id = $1 RETURNING ${RUN_COLUMNS}`,
      [
        id,
        end.status,
        end.etag,
        counts.created,
        counts.updated,
        counts.archived,
        counts.conflicts,
        counts.unchanged,
        end.error ?? null,
        now,
      ],
    );
    return toRun(rows[0] as RunRow);
  },

  /** When the last run started (the schedule's spacing across replicas); null before the first. */
  async lastStart(db: Queryable): Promise<Date | null> {
    const { rows } = await db.query<{ at: Date | null }>(
      `SELECT max(started_at) AS at FROM messaging_faq_sync_runs`,
    );
    return rows[0]?.at ?? null;
  },

  /**
   * Runs still `running` are left by a replica that died mid-run (the lock is free again, so none is in
   * flight): they are closed as failed before a new run starts.
   */
  async closeAbandoned(db: Queryable, now: Date): Promise<void> {
    await db.query(
      `UPDATE messaging_faq_sync_runs SET status = 'failed', error = 'abandoned: the replica running it stopped',
              finished_at = $1 WHERE status = 'running'`,
      [now],
    );
  },

  async listRuns(
    db: Queryable,
    limit: number,
    after?: readonly [string, string],
  ): Promise<Array<FaqSyncRun & { position: string }>> {
    const values: unknown[] = [limit];
    let where = '';
    if (after) {
      values.push(after[0], after[1]);
      where = 'WHERE (started_at, id) < ($2::timestamptz, $3::uuid)';
    }
    const { rows } = await db.query<RunRow & { position: string }>(
      `SELECT ${RUN_COLUMNS}, started_at::text AS position FROM messaging_faq_sync_runs ${where}
        ORDER BY started_at DESC, id DESC LIMIT $1`,
      values,
    );
    return rows.map((row) => ({ ...toRun(row), position: row.position }));
  },

  async etag(db: Queryable): Promise<string | null> {
    const { rows } = await db.query<{ etag: string | null }>(`SELECT etag FROM messaging_faq_state`);
    return rows[0]?.etag ?? null;
  },

  async saveEtag(db: Queryable, etag: string | null): Promise<void> {
    await db.query(`UPDATE messaging_faq_state SET etag = $1`, [etag]);
  },

  /** Records an upstream change of a locally edited entry, replacing the snapshot of its open conflict. */
  async recordConflict(
    db: Queryable,
    entryId: string,
    item: UpstreamItem,
    hash: string,
    now: Date,
  ): Promise<void> {
    const upstream = {
      questions: item.questions,
      answer: item.answer,
      language: item.language,
      updatedAt: item.updatedAt,
    };
    await db.query(
      `INSERT INTO messaging_faq_conflicts (entry_id, upstream, upstream_hash, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (entry_id) WHERE resolved_at IS NULL
       DO UPDATE SET upstream = EXCLUDED.upstream, upstream_hash = EXCLUDED.upstream_hash, updated_at = $4`,
      [entryId, JSON.stringify(upstream), hash, now],
    );
  },

  async findConflict(db: Queryable, id: string, forUpdate = false): Promise<FaqConflict | null> {
    const { rows } = await db.query<ConflictRow>(
      `${CONFLICT_SELECT} WHERE c.id = $1${forUpdate ? ' FOR UPDATE OF c, e' : ''}`,
      [id],
    );
    return rows[0] ? toConflict(rows[0]) : null;
  },

  async listConflicts(
    db: Queryable,
    open: boolean,
    limit: number,
    after?: readonly [string, string],
  ): Promise<Array<FaqConflict & { position: string }>> {
    const values: unknown[] = [limit];
    const where = [open ? 'c.resolved_at IS NULL' : 'c.resolved_at IS NOT NULL'];
    if (after) {
      values.push(after[0], after[1]);
      where.push('(c.created_at, c.id) < ($2::timestamptz, $3::uuid)');
    }
    const { rows } = await db.query<ConflictRow & { position: string }>(
      `${CONFLICT_SELECT.replace('SELECT', 'SELECT c.created_at::text AS position,')}
        WHERE ${where.join(' AND ')} ORDER BY c.created_at DESC, c.id DESC LIMIT $1`,
      values,
    );
    return rows.map((row) => ({ ...toConflict(row), position: row.position }));
  },

  async markResolved(
    db: Queryable,
    id: string,
    keep: 'local' | 'upstream',
    by: string,
    now: Date,
  ): Promise<void> {
    await db.query(
      `UPDATE messaging_faq_conflicts SET resolved_at = $2, resolved_by = $3, resolution = $4, updated_at = $2
        WHERE id = $1`,
      [id, now, by, keep],
    );
  },
};

interface ConflictRow {
  c_id: string;
  c_upstream: FaqConflict['upstream'];
  c_upstream_hash: string;
  c_created_at: Date;
  c_updated_at: Date;
  c_resolved_at: Date | null;
  c_resolved_by: string | null;
  c_resolution: 'local' | 'upstream' | null;
  entry: Parameters<typeof toFaqEntry>[0] & { created_at: string; updated_at: string };
}

const CONFLICT_SELECT = `SELECT c.id AS c_id, c.upstream AS c_upstream, c.upstream_hash AS c_upstream_hash,
    c.created_at AS c_created_at, c.updated_at AS c_updated_at, c.resolved_at AS c_resolved_at,
    c.resolved_by AS c_resolved_by, c.resolution AS c_resolution, to_jsonb(e) AS entry
  FROM messaging_faq_conflicts c JOIN messaging_faq_entries e ON e.id = c.entry_id`;

function toConflict(row: ConflictRow): FaqConflict & { upstreamHash: string } {
  const raw = row.entry as unknown as Record<string, unknown>;
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  const local = toFaqEntry({
    ...(raw as unknown as Parameters<typeof toFaqEntry>[0]),
    upstream_updated_at: date(raw.upstream_updated_at),
    archived_at: date(raw.archived_at),
    created_at: date(raw.created_at) as Date,
    updated_at: date(raw.updated_at) as Date,
  });
  return {
    id: row.c_id,
    entryId: local.id,
    local,
    upstream: row.c_upstream,
    upstreamHash: row.c_upstream_hash,
    createdAt: row.c_created_at.toISOString(),
    updatedAt: row.c_updated_at.toISOString(),
    resolvedAt: row.c_resolved_at?.toISOString() ?? null,
    resolvedBy: row.c_resolved_by,
    resolution: row.c_resolution,
  };
}
