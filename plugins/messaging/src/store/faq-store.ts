import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { FaqCreate, FaqEntry, FaqUpdate, UpstreamItem } from '../domain/faq-schemas.ts';
import type { KnownEntry } from '../domain/faq-sync-plan.ts';

/**
 * messaging_faq_entries (migrations/messaging/0007): the FAQ's entries, local and synced (README, "FAQ").
 * An entry is never deleted: removing it archives it, so a sync or a conflict can always refer to it.
 */

interface EntryRow {
  id: string;
  questions: string[];
  answer: string;
  language: 'id' | 'en';
  published: boolean;
  external_id: string | null;
  origin: 'local' | 'synced';
  locally_edited: boolean;
  upstream_hash: string | null;
  upstream_updated_at: Date | null;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, questions, answer, language, published, external_id, origin, locally_edited, upstream_hash,
  upstream_updated_at, archived_at, created_at, updated_at`;

function iso(value: Date | null): string | null {
  return value === null ? null : value.toISOString();
}

/** A row as the API answers it. */
export function toFaqEntry(row: EntryRow): FaqEntry {
  return {
    id: row.id,
    questions: row.questions,
    answer: row.answer,
    language: row.language,
    published: row.published,
    archived: row.archived_at !== null,
    externalId: row.external_id,
    origin: row.origin,
    locallyEdited: row.locally_edited,
    upstreamHash: row.upstream_hash,
    upstreamUpdatedAt: iso(row.upstream_updated_at),
    archivedAt: iso(row.archived_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export interface FaqListFilter {
  language?: 'id' | 'en';
  published?: boolean;
  archived: boolean;
  /** Rows strictly after this (created_at as PostgreSQL's exact text, id) in the list's order, newest first. */
  after?: readonly [string, string];
  limit: number;
}

/** A published, live entry: what the phrase tier and the knowledge base take from the FAQ. */
export interface PublishedFaq {
  id: string;
  questions: string[];
  answer: string;
  language: 'id' | 'en';
  updatedAt: Date;
}

export const faqStore = {
  async create(db: Queryable, input: FaqCreate, now: Date): Promise<FaqEntry> {
    const { rows } = await db.query<EntryRow>(
      `INSERT INTO messaging_faq_entries (questions, answer, language, published, origin, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'local', $5, $5) RETURNING ${COLUMNS}`,
      [input.questions, input.answer, input.language, input.published, now],
    );
    return toFaqEntry(rows[0] as EntryRow);
  },

  async find(db: Queryable, id: string, forUpdate = false): Promise<FaqEntry | null> {
    const { rows } = await db.query<EntryRow>(
      `SELECT ${COLUMNS} FROM messaging_faq_entries WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toFaqEntry(rows[0]) : null;
  },

  /**
   * Applies an admin's change. A change of the content (questions, answer, language) marks the entry edited
   * locally, so the sync will not overwrite it; publishing alone does not.
   */
  async update(db: Queryable, id: string, patch: FaqUpdate, now: Date): Promise<FaqEntry> {
    const edited =
      patch.questions !== undefined || patch.answer !== undefined || patch.language !== undefined;
    const { rows } = await db.query<EntryRow>(
      `UPDATE messaging_faq_entries
          SET questions = coalesce($2, questions), answer = coalesce($3, answer),
              language = coalesce($4, language), published = coalesce($5, published),
              locally_edited = locally_edited OR $6, updated_at = $7
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        patch.questions ?? null,
        patch.answer ?? null,
        patch.language ?? null,
        patch.published ?? null,
        edited,
        now,
      ],
    );
    return toFaqEntry(rows[0] as EntryRow);
  },

  /** Archives an entry on an admin's word; a synced one then counts as edited here (the sync leaves it archived). */
  async archive(db: Queryable, id: string, now: Date): Promise<void> {
    await db.query(
      `UPDATE messaging_faq_entries
          SET archived_at = $2, updated_at = $2, locally_edited = locally_edited OR origin = 'synced'
        WHERE id = $1 AND archived_at IS NULL`,
      [id, now],
    );
  },

  async list(db: Queryable, filter: FaqListFilter): Promise<Array<FaqEntry & { position: string }>> {
    const values: unknown[] = [filter.limit];
    const where = [filter.archived ? 'archived_at IS NOT NULL' : 'archived_at IS NULL'];
    if (filter.language) {
      values.push(filter.language);
      where.push(`language = $${values.length}`);
    }
    if (filter.published !== undefined) {
      values.push(filter.published);
      where.push(`published = $${values.length}`);
    }
    if (filter.after) {
      values.push(filter.after[0], filter.after[1]);
      where.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
    }
    const { rows } = await db.query<EntryRow & { position: string }>(
      `SELECT ${COLUMNS}, created_at::text AS position
         FROM messaging_faq_entries WHERE ${where.join(' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT $1`,
      values,
    );
    return rows.map((row) => ({ ...toFaqEntry(row), position: row.position }));
  },

  /**
   * The published, live entries, oldest first: what the phrase tier matches and what the knowledge base
   * imports as its FAQ source.
   */
  async listPublished(db: Queryable): Promise<PublishedFaq[]> {
    const { rows } = await db.query<{
      id: string;
      questions: string[];
      answer: string;
      language: 'id' | 'en';
      updated_at: Date;
    }>(
      `SELECT id, questions, answer, language, updated_at FROM messaging_faq_entries
        WHERE published AND archived_at IS NULL ORDER BY created_at, id`,
    );
    return rows.map((row) => ({ ...row, updatedAt: row.updated_at }));
  },

  /** The version of the published questions: every write of an entry bumps it (the migration's trigger). */
  async phrasesVersion(db: Queryable): Promise<string> {
    const { rows } = await db.query<{ v: string }>(
      `SELECT phrases_version::text AS v FROM messaging_faq_state`,
    );
    return rows[0]?.v ?? '0';
  },

  /** Every synced entry, with the upstream hash of its open conflict (the sync plan's input). */
  async knownSynced(db: Queryable): Promise<KnownEntry[]> {
    const { rows } = await db.query<KnownEntry>(
      `SELECT e.id, e.external_id AS "externalId", e.upstream_hash AS "upstreamHash",
              e.locally_edited AS "locallyEdited", e.archived_at IS NOT NULL AS archived,
              c.upstream_hash AS "openConflictHash"
         FROM messaging_faq_entries e
         LEFT JOIN messaging_faq_conflicts c ON c.entry_id = e.id AND c.resolved_at IS NULL
        WHERE e.origin = 'synced'
        FOR UPDATE OF e`,
    );
    return rows;
  },

  /** Creates an entry from the upstream, published: the knowledge service is where its text is reviewed. */
  async createSynced(db: Queryable, item: UpstreamItem, hash: string, now: Date): Promise<void> {
    await db.query(
      `INSERT INTO messaging_faq_entries (questions, answer, language, published, external_id, origin, upstream_hash,
         upstream_updated_at, created_at, updated_at)
       VALUES ($1, $2, $3, true, $4, 'synced', $5, $6, $7, $7)`,
      [item.questions, item.answer, item.language, item.id, hash, item.updatedAt, now],
    );
  },

  /** Takes the upstream content: the entry is live again and no longer edited here. */
  async applyUpstream(
    db: Queryable,
    entryId: string,
    content: Pick<UpstreamItem, 'questions' | 'answer' | 'language' | 'updatedAt'>,
    hash: string,
    now: Date,
  ): Promise<void> {
    await db.query(
      `UPDATE messaging_faq_entries
          SET questions = $2, answer = $3, language = $4, upstream_hash = $5, upstream_updated_at = $6,
              locally_edited = false, archived_at = NULL, updated_at = $7
        WHERE id = $1`,
      [entryId, content.questions, content.answer, content.language, hash, content.updatedAt, now],
    );
  },

  /** Keeps the local content but records the upstream version it was weighed against. */
  async keepLocal(db: Queryable, entryId: string, hash: string, upstreamUpdatedAt: string): Promise<void> {
    await db.query(
      `UPDATE messaging_faq_entries SET upstream_hash = $2, upstream_updated_at = $3 WHERE id = $1`,
      [entryId, hash, upstreamUpdatedAt],
    );
  },

  async archiveRemoved(db: Queryable, entryId: string, now: Date): Promise<void> {
    await db.query(`UPDATE messaging_faq_entries SET archived_at = $2, updated_at = $2 WHERE id = $1`, [
      entryId,
      now,
    ]);
  },
};
