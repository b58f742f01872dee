import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

/**
 * messaging_kb_gap_candidates and messaging_kb_gap_groups (migrations/messaging/0006): the signals that the
 * knowledge base lacks an answer, grouped by their normal form (README, "Knowledge base", "Gaps").
 */

export const GAP_KINDS = ['fallback', 'no_kb_answer', 'thumbs_down', 'correction'] as const;
export type GapKind = (typeof GAP_KINDS)[number];

/** The transaction-scoped advisory lock collections take one at a time: 'mkg', messaging KB gaps. */
const COLLECTION_LOCK = 0x6d6b67;

/** A source row not collected yet: `ref` names it within its kind, `text` is the customer's message. */
export interface GapSourceRow {
  ref: string;
  message_id: string;
  text: string;
  seen_at: Date;
}

export interface GapCandidateWrite extends GapSourceRow {
  kind: GapKind;
  key: string | null;
}

export interface GapGroupRow {
  key: string;
  status: 'open' | 'closed';
  candidate_count: number;
  first_seen_at: Date;
  last_seen_at: Date;
  closed_at: Date | null;
  closed_by_document_id: string | null;
  closed_by_title: string | null;
  closed_kb_version: string | null;
}

export interface GapExampleRow {
  key: string;
  kind: GapKind;
  message_id: string;
  text: string;
  seen_at: Date;
}

/** Rows at most this much older than a kind's newest candidate are read again (then skipped if collected). */
const RESUME_MARGIN_MS = 3_600_000;

// Each source reads from its kind's newest candidate on, less the margin: a row written by a transaction that
// committed after a later one (the margin is far longer than any transaction) is still found. The anti-join
// skips what the margin re-reads, so a pass reads about the rows since the last one, whatever the table's size.
const resume = (kind: GapKind) =>
  `(SELECT coalesce(max(seen_at), '-infinity') FROM messaging_kb_gap_candidates WHERE kind = '${kind}')
     - $1::int * interval '1 millisecond'`;
const notCollected = (kind: GapKind, ref: string) =>
  `NOT EXISTS (SELECT 1 FROM messaging_kb_gap_candidates c WHERE c.kind = '${kind}' AND c.ref = ${ref})`;
const feedbackSource = (kind: GapKind, condition: string) =>
  `SELECT f.message_id::text || ':' || f.user_id AS ref, coalesce(i.id, f.message_id) AS message_id,
          coalesce(i.text, '') AS text, f.updated_at AS seen_at
     FROM messaging_message_feedback f
     JOIN messaging_messages m ON m.id = f.message_id
     LEFT JOIN messaging_messages i ON i.id = m.in_reply_to
    WHERE ${condition} AND f.updated_at >= ${resume(kind)}
      AND ${notCollected(kind, `f.message_id::text || ':' || f.user_id`)}
    ORDER BY f.updated_at, f.message_id, f.user_id
    LIMIT $2`;

/**
 * What each kind collects. A default-tier message counts unless the knowledge base answered it (the default
 * tier hands questions to the KB: an answered one is no gap); a message of another tier counts when the KB
 * had no answer above the threshold. Feedback names the customer message the bot's reply answered.
 */
const SOURCES: Record<GapKind, string> = {
  fallback: `SELECT m.id::text AS ref, m.id AS message_id, coalesce(m.text, '') AS text, m.processed_at AS seen_at
      FROM messaging_messages m
      LEFT JOIN messaging_kb_answers a ON a.message_id = m.id
     WHERE m.direction = 'inbound' AND m.tier = 4 AND m.processed_at >= ${resume('fallback')}
       AND a.answered IS NOT TRUE AND ${notCollected('fallback', 'm.id::text')}
     ORDER BY m.processed_at, m.id
     LIMIT $2`,
  no_kb_answer: `SELECT a.message_id::text AS ref, a.message_id, coalesce(m.text, '') AS text, a.created_at AS seen_at
      FROM messaging_kb_answers a
      JOIN messaging_messages m ON m.id = a.message_id
     WHERE NOT a.answered AND m.tier IS DISTINCT FROM 4 AND a.created_at >= ${resume('no_kb_answer')}
       AND ${notCollected('no_kb_answer', 'a.message_id::text')}
     ORDER BY a.created_at, a.message_id
     LIMIT $2`,
  thumbs_down: feedbackSource('thumbs_down', `f.rating = 'down'`),
  correction: feedbackSource(
    'correction',
    '(f.corrected_intent IS NOT NULL OR f.corrected_answer IS NOT NULL)',
  ),
};

export const kbGapStore = {
  /** Makes the caller's transaction the only collection running (on any replica) until it ends. */
  async lockCollection(tx: Queryable): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [COLLECTION_LOCK]);
  },

  /** Up to `limit` rows of a kind's source not collected yet, oldest first. */
  async uncollected(tx: Queryable, kind: GapKind, limit: number): Promise<GapSourceRow[]> {
    const { rows } = await tx.query<GapSourceRow>(SOURCES[kind], [RESUME_MARGIN_MS, limit]);
    return rows;
  },

  /**
   * Records candidates and adds the new ones to their groups, in the caller's transaction. A candidate
   * already recorded (its primary key) is left out of the counts, so whatever runs concurrently counts each
   * once. A new candidate reopens a closed group, to be searched again (README, "Gaps"). Answers how many
   * candidates were new.
   */
  async record(tx: Queryable, candidates: readonly GapCandidateWrite[]): Promise<number> {
    if (candidates.length === 0) return 0;
    const inserted = await tx.query<{ key: string | null; seen_at: Date }>(
      `INSERT INTO messaging_kb_gap_candidates (kind, ref, key, message_id, text, seen_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::text[], $6::timestamptz[])
       ON CONFLICT (kind, ref) DO NOTHING
       RETURNING key, seen_at`,
      [
        candidates.map((c) => c.kind),
        candidates.map((c) => c.ref),
        candidates.map((c) => c.key),
        candidates.map((c) => c.message_id),
        candidates.map((c) => c.text),
        candidates.map((c) => c.seen_at),
      ],
    );
    const grouped = inserted.rows.filter((row) => row.key !== null);
    if (grouped.length > 0)
      await tx.query(
        `INSERT INTO messaging_kb_gap_groups AS g (key, candidate_count, first_seen_at, last_seen_at)
         SELECT c.key, count(*), min(c.seen_at), max(c.seen_at)
           FROM unnest($1::text[], $2::timestamptz[]) AS c(key, seen_at)
          GROUP BY c.key ORDER BY c.key
         ON CONFLICT (key) DO UPDATE
           SET candidate_count = g.candidate_count + EXCLUDED.candidate_count,
               first_seen_at = least(g.first_seen_at, EXCLUDED.first_seen_at),
               last_seen_at = greatest(g.last_seen_at, EXCLUDED.last_seen_at),
               status = 'open', closed_at = NULL, closed_by_document_id = NULL, closed_kb_version = NULL,
               checked_kb_version = CASE WHEN g.status = 'closed' THEN NULL ELSE g.checked_kb_version END`,
        [grouped.map((row) => row.key), grouped.map((row) => row.seen_at)],
      );
    return inserted.rows.length;
  },

  /** Open groups not searched at `kbVersion` yet, the largest first. */
  async unchecked(db: Queryable, kbVersion: number, limit: number): Promise<string[]> {
    const { rows } = await db.query<{ key: string }>(
      `SELECT key FROM messaging_kb_gap_groups
        WHERE status = 'open' AND checked_kb_version IS DISTINCT FROM $1
        ORDER BY candidate_count DESC, key
        LIMIT $2`,
      [kbVersion, limit],
    );
    return rows.map((row) => row.key);
  },

  /**
   * Records what searching the groups at `kbVersion` found: a group with a document (`closedBy`) closes. Only
   * groups still open and not searched at that version change, so concurrent passes agree. Answers how
   * many groups closed.
   */
  async checked(
    db: Queryable,
    kbVersion: number,
    results: ReadonlyArray<{ key: string; closedBy: string | null }>,
    now: Date,
  ): Promise<number> {
    if (results.length === 0) return 0;
    const { rows } = await db.query<{ status: string }>(
      `UPDATE messaging_kb_gap_groups g
          SET checked_kb_version = $3,
              status = CASE WHEN r.doc IS NULL THEN 'open' ELSE 'closed' END,
              closed_at = CASE WHEN r.doc IS NULL THEN NULL ELSE $4::timestamptz END,
              closed_by_document_id = r.doc,
              closed_kb_version = CASE WHEN r.doc IS NULL THEN NULL ELSE $3::bigint END
         FROM unnest($1::text[], $2::uuid[]) AS r(key, doc)
        WHERE g.key = r.key AND g.status = 'open' AND g.checked_kb_version IS DISTINCT FROM $3
       RETURNING g.status`,
      [results.map((r) => r.key), results.map((r) => r.closedBy), kbVersion, now],
    );
    return rows.filter((row) => row.status === 'closed').length;
  },

  /**
   * One page of groups, the most candidates first, ties by key: a keyset walk over the count index, from
   * after `(count, key)`.
   */
  async page(
    db: Queryable,
    filter: { status: 'open' | 'closed' | null; after: readonly [number, string] | null; limit: number },
  ): Promise<GapGroupRow[]> {
    const values: unknown[] = [filter.limit];
    let where = '';
    if (filter.status !== null) {
      values.push(filter.status);
      where += ` AND g.status = $${values.length}`;
    }
    if (filter.after !== null) {
      values.push(...filter.after);
      const n = values.length;
      where += ` AND (g.candidate_count < $${n - 1} OR (g.candidate_count = $${n - 1} AND g.key > $${n}))`;
    }
    const { rows } = await db.query<GapGroupRow>(
      `SELECT g.key, g.status, g.candidate_count, g.first_seen_at, g.last_seen_at, g.closed_at,
              g.closed_by_document_id, d.title AS closed_by_title, g.closed_kb_version::text
         FROM messaging_kb_gap_groups g
         LEFT JOIN messaging_kb_documents d ON d.id = g.closed_by_document_id
        WHERE true${where}
        ORDER BY g.candidate_count DESC, g.key
        LIMIT $1`,
      values,
    );
    return rows;
  },

  /** Candidates per group and ISO week (`2026-W07`, UTC) seen since `since`. */
  async weekly(
    db: Queryable,
    keys: readonly string[],
    since: Date,
  ): Promise<Array<{ key: string; week: string; count: number }>> {
    if (keys.length === 0) return [];
    const { rows } = await db.query<{ key: string; week: string; count: number }>(
      `SELECT key, to_char(seen_at AT TIME ZONE 'UTC', 'IYYY-"W"IW') AS week, count(*)::int AS count
         FROM messaging_kb_gap_candidates
        WHERE key = ANY($1::text[]) AND seen_at >= $2
        GROUP BY 1, 2`,
      [keys, since],
    );
    return rows;
  },

  /** The newest `perKey` candidates of each group. */
  async examples(db: Queryable, keys: readonly string[], perKey: number): Promise<GapExampleRow[]> {
    if (keys.length === 0) return [];
    const { rows } = await db.query<GapExampleRow>(
      `SELECT k.key, e.kind, e.message_id, e.text, e.seen_at
         FROM unnest($1::text[]) AS k(key)
        CROSS JOIN LATERAL (
          SELECT c.kind, c.message_id, c.text, c.seen_at FROM messaging_kb_gap_candidates c
           WHERE c.key = k.key ORDER BY c.seen_at DESC, c.kind, c.ref LIMIT $2) e
        ORDER BY k.key, e.seen_at DESC`,
      [keys, perKey],
    );
    return rows;
  },
};
