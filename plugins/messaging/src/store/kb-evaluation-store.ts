import type pg from 'pg';
import type { Database, Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * messaging_kb_eval_items and messaging_kb_eval_runs (migrations/messaging/0006): the KB evaluation set and
 * its runs (README, "Knowledge base", "Evaluation"). Admin-only data: no cluster scope.
 */

export type EvalOrigin = 'gold' | 'correction' | 'manual';

export interface EvalItemRow {
  id: string;
  question: string;
  language: 'id' | 'en';
  expected_document_ids: string[];
  expected_intent: string | null;
  origin: EvalOrigin;
  held_out: boolean;
  created_at: Date;
  updated_at: Date;
  /** created_at in microseconds since the epoch: the cursor's exact sort key. */
  position: string;
}

export interface EvalItemWrite {
  question: string;
  language: 'id' | 'en';
  expectedDocumentIds: readonly string[];
  expectedIntent: string | null;
  heldOut: boolean;
}

export interface EvalSeed extends EvalItemWrite {
  origin: EvalOrigin;
  seedKey: string;
}

export interface EvalRunRow {
  id: string;
  kb_version: string;
  threshold: number;
  item_count: number;
  metrics: unknown;
  created_by: string;
  created_at: Date;
  position: string;
}

const ITEM_COLUMNS = `id, question, language, expected_document_ids, expected_intent, origin, held_out, created_at,
  updated_at, (extract(epoch FROM created_at) * 1000000)::bigint::text AS position`;
const RUN_COLUMNS = `id, kb_version::text, threshold, item_count, metrics, created_by, created_at,
  (extract(epoch FROM created_at) * 1000000)::bigint::text AS position`;
const AT_MICROS = (n: number) => `timestamptz 'epoch' + $${n}::bigint * interval '1 microsecond'`;

/** The advisory lock key of evaluation runs (any constant no other lock of the database uses). */
const RUN_LOCK_KEY = 7_020_002;

/** The item list's filters. */
export interface EvalItemFilter {
  origin?: EvalOrigin;
  language?: 'id' | 'en';
  heldOut?: boolean;
}

export const kbEvaluationStore = {
  /** Items oldest first (ties by id), filtered, after the cursor position. */
  async pageItems(
    db: Queryable,
    options: EvalItemFilter & { limit: number; after?: readonly [number, string] },
  ): Promise<EvalItemRow[]> {
    const values: unknown[] = [options.limit];
    const where: string[] = [];
    const add = (column: string, value: unknown) => {
      values.push(value);
      where.push(`${column} = $${values.length}`);
    };
    if (options.origin !== undefined) add('origin', options.origin);
    if (options.language !== undefined) add('language', options.language);
    if (options.heldOut !== undefined) add('held_out', options.heldOut);
    if (options.after) {
      values.push(...options.after);
      const n = values.length;
      where.push(`(created_at, id) > (${AT_MICROS(n - 1)}, $${n}::uuid)`);
    }
    const { rows } = await db.query<EvalItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM messaging_kb_eval_items
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at, id LIMIT $1`,
      values,
    );
    return rows;
  },

  /** Whether the set has any item. */
  async hasItems(db: Queryable): Promise<boolean> {
    const { rows } = await db.query<{ found: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM messaging_kb_eval_items) AS found',
    );
    return rows[0]?.found === true;
  },

  /** Every item, for a run. */
  async allItems(db: Queryable): Promise<EvalItemRow[]> {
    const { rows } = await db.query<EvalItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM messaging_kb_eval_items ORDER BY created_at, id`,
    );
    return rows;
  },

  async getItem(db: Queryable, id: string): Promise<EvalItemRow | null> {
    const { rows } = await db.query<EvalItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM messaging_kb_eval_items WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  },

  async createItem(db: Queryable, item: EvalItemWrite, now: Date): Promise<EvalItemRow> {
    const { rows } = await db.query<EvalItemRow>(
      `INSERT INTO messaging_kb_eval_items
         (question, language, expected_document_ids, expected_intent, origin, held_out, created_at, updated_at)
       VALUES ($1, $2, $3::uuid[], $4, 'manual', $5, $6, $6)
       RETURNING ${ITEM_COLUMNS}`,
      [item.question, item.language, item.expectedDocumentIds, item.expectedIntent, item.heldOut, now],
    );
    return rows[0] as EvalItemRow;
  },

  /** Replaces an item's fields (its origin stays); null when there is no such item. */
  async updateItem(db: Queryable, id: string, item: EvalItemWrite, now: Date): Promise<EvalItemRow | null> {
    const { rows } = await db.query<EvalItemRow>(
      `UPDATE messaging_kb_eval_items
          SET question = $2, language = $3, expected_document_ids = $4::uuid[], expected_intent = $5,
              held_out = $6, updated_at = $7
        WHERE id = $1
        RETURNING ${ITEM_COLUMNS}`,
      [id, item.question, item.language, item.expectedDocumentIds, item.expectedIntent, item.heldOut, now],
    );
    return rows[0] ?? null;
  },

  async deleteItem(db: Queryable, id: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM messaging_kb_eval_items WHERE id = $1', [id]);
    return (rowCount ?? 0) > 0;
  },

  /**
   * Adds the seeds not seeded before (by `seedKey`), in one statement; an item seeded earlier and since edited
   * or deleted by an admin is left alone. Answers how many were added.
   */
  async seed(db: Queryable, seeds: readonly EvalSeed[], now: Date): Promise<number> {
    if (seeds.length === 0) return 0;
    const { rowCount } = await db.query(
      `INSERT INTO messaging_kb_eval_items
         (question, language, expected_intent, origin, held_out, seed_key, created_at, updated_at)
       SELECT s.question, s.language, s.intent, s.origin, s.held_out, s.seed_key, $7, $7
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[])
              WITH ORDINALITY AS s (question, language, intent, origin, held_out, seed_key, ord)
        ORDER BY s.ord
       ON CONFLICT (seed_key) DO NOTHING`,
      [
        seeds.map((s) => s.question),
        seeds.map((s) => s.language),
        seeds.map((s) => s.expectedIntent),
        seeds.map((s) => s.origin),
        seeds.map((s) => s.heldOut),
        seeds.map((s) => s.seedKey),
        now,
      ],
    );
    return rowCount ?? 0;
  },

  /** Staff intent corrections as seeds: the customer message and the intent it should have had. */
  async corrections(db: Queryable, intents: readonly string[]): Promise<EvalSeed[]> {
    const { rows } = await db.query<{
      message_id: string;
      text: string;
      intent: string;
      language: 'id' | 'en';
    }>(
      `SELECT DISTINCT ON (i.id) i.id AS message_id, left(i.text, 1000) AS text, f.corrected_intent AS intent,
              c.language
         FROM messaging_message_feedback f
         JOIN messaging_messages m ON m.id = f.message_id
         JOIN messaging_messages i ON i.id = m.in_reply_to
         JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE f.corrected_intent = ANY($1::text[]) AND btrim(i.text) <> ''
        ORDER BY i.id, f.updated_at DESC`,
      [intents],
    );
    return rows.map((row) => ({
      question: row.text,
      language: row.language,
      expectedDocumentIds: [],
      expectedIntent: row.intent,
      heldOut: false,
      origin: 'correction',
      seedKey: `correction:${row.message_id}`,
    }));
  },

  /** The ids among `ids` that name no KB document (in any status, archived included). */
  async unknownDocuments(db: Queryable, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await db.query<{ id: string }>(
      `SELECT u.id::text AS id FROM unnest($1::uuid[]) AS u (id)
        WHERE NOT EXISTS (SELECT 1 FROM messaging_kb_documents d WHERE d.id = u.id)`,
      [ids],
    );
    return rows.map((row) => row.id);
  },

  /**
   * Runs `work` holding the evaluation's session-level advisory lock on a connection of its own (no
   * transaction stays open during the run; a replica that dies drops the lock with its connection). Null when
   * another run, on this or another replica, holds it.
   */
  async withRunLock<T>(db: Database, work: () => Promise<T>): Promise<{ value: T } | null> {
    const client: pg.PoolClient = await db.pool.connect();
    try {
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
        RUN_LOCK_KEY,
      ]);
      if (!rows[0]?.locked) return null;
      try {
        return { value: await work() };
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [RUN_LOCK_KEY]);
      }
    } finally {
      client.release();
    }
  },

  async getRun(db: Queryable, id: string): Promise<EvalRunRow | null> {
    const { rows } = await db.query<EvalRunRow>(
      `SELECT ${RUN_COLUMNS} FROM messaging_kb_eval_runs WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  },

  async insertRun(
    db: Queryable,
    run: { kbVersion: number; threshold: number; itemCount: number; metrics: unknown; createdBy: string },
    now: Date,
  ): Promise<EvalRunRow> {
    const { rows } = await db.query<EvalRunRow>(
      `INSERT INTO messaging_kb_eval_runs (kb_version, threshold, item_count, metrics, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${RUN_COLUMNS}`,
      [run.kbVersion, run.threshold, run.itemCount, JSON.stringify(run.metrics), run.createdBy, now],
    );
    return rows[0] as EvalRunRow;
  },

  /**
   * Runs newest first, each with the run before it (for the delta): `limit + 1` rows are read so the last
   * run of the page has its predecessor too.
   */
  async pageRuns(
    db: Queryable,
    options: { limit: number; before?: readonly [number, string] },
  ): Promise<EvalRunRow[]> {
    const values: unknown[] = [options.limit + 1];
    let where = '';
    if (options.before) {
      values.push(...options.before);
      where = `WHERE (created_at, id) < (${AT_MICROS(2)}, $3::uuid)`;
    }
    const { rows } = await db.query<EvalRunRow>(
      `SELECT ${RUN_COLUMNS} FROM messaging_kb_eval_runs ${where} ORDER BY created_at DESC, id DESC LIMIT $1`,
      values,
    );
    return rows;
  },
};
