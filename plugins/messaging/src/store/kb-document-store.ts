import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { KbLanguage, KbSource, KbStatus } from '../domain/kb-schemas.ts';

/**
 * messaging_kb_documents, messaging_kb_document_versions and messaging_kb_imports (migrations/messaging/0005):
 * the knowledge base's documents, the versions their edits replaced, and the file imports.
 */

export interface KbDocumentRow {
  id: string;
  title: string;
  body: string;
  language: KbLanguage;
  tags: string[];
  source: KbSource;
  status: KbStatus;
  version: number;
  created_by: string;
  updated_by: string;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
}

export interface KbDocumentVersionRow {
  version: number;
  title: string;
  body: string;
  language: KbLanguage;
  tags: string[];
  status: KbStatus;
  saved_by: string;
  saved_at: Date;
}

export interface KbDocumentWrite {
  title: string;
  body: string;
  language: KbLanguage;
  tags: readonly string[];
  status: KbStatus;
}

export interface KbDocumentFilter {
  status?: KbStatus;
  language?: KbLanguage;
  tag?: string;
  source?: KbSource;
  /** Rows strictly after this (updated_at µs, id) in the list's order. */
  after?: readonly [number, string];
  limit: number;
}

const COLUMNS = `id, title, body, language, tags, source, status, version, created_by, updated_by, created_at,
  updated_at, published_at`;

/** A FAQ entry whose knowledge-base document is missing or behind it (migrations/messaging/0009). */
export interface FaqMirrorRow {
  entry_id: string;
  questions: string[];
  answer: string;
  language: KbLanguage;
  live: boolean;
  entry_updated_at: Date;
  document_id: string | null;
}

export const kbDocumentStore = {
  /**
   * The FAQ entries whose document is missing (a live published entry without one) or older than the entry.
   * Only this transaction's own entry changes are normally found: every committed change took its document along.
   */
  async faqMirrorsDue(tx: Queryable): Promise<FaqMirrorRow[]> {
    const { rows } = await tx.query<FaqMirrorRow>(
      `SELECT e.id AS entry_id, e.questions, e.answer, e.language,
              e.published AND e.archived_at IS NULL AS live, e.updated_at AS entry_updated_at, d.id AS document_id
         FROM messaging_faq_entries e
         LEFT JOIN messaging_kb_documents d ON d.faq_entry_id = e.id
        WHERE (d.id IS NULL AND e.published AND e.archived_at IS NULL)
           OR (d.id IS NOT NULL AND d.faq_updated_at IS DISTINCT FROM e.updated_at)
        ORDER BY e.id`,
    );
    return rows;
  },

  /** Links a document to its FAQ entry, as of the entry's `updated_at`. */
  async linkFaq(tx: Queryable, documentId: string, entryId: string, entryUpdatedAt: Date): Promise<void> {
    await tx.query('UPDATE messaging_kb_documents SET faq_entry_id = $2, faq_updated_at = $3 WHERE id = $1', [
      documentId,
      entryId,
      entryUpdatedAt,
    ]);
  },

  /**
   * Locks a FAQ entry and answers its document's id, if it has one by now: two transactions mirroring the
   * same entry take turns, and the second finds the first one's document.
   */
  async lockFaqEntry(tx: Queryable, entryId: string): Promise<string | null> {
    await tx.query('SELECT 1 FROM messaging_faq_entries WHERE id = $1 FOR UPDATE', [entryId]);
    const { rows } = await tx.query<{ id: string }>(
      'SELECT id FROM messaging_kb_documents WHERE faq_entry_id = $1',
      [entryId],
    );
    return rows[0]?.id ?? null;
  },

  /** The FAQ entry a document mirrors, or null for one written here. */
  async faqEntryOf(db: Queryable, documentId: string): Promise<string | null> {
    const { rows } = await db.query<{ id: string | null }>(
      'SELECT faq_entry_id AS id FROM messaging_kb_documents WHERE id = $1',
      [documentId],
    );
    return rows[0]?.id ?? null;
  },

  async insert(
    tx: Queryable,
    doc: KbDocumentWrite & { source: KbSource; importId?: string },
    by: string,
    now: Date,
  ): Promise<KbDocumentRow> {
    const { rows } = await tx.query<KbDocumentRow>(
      `INSERT INTO messaging_kb_documents
         (title, body, language, tags, source, status, import_id, created_by, updated_by, created_at, updated_at,
          published_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $9, CASE WHEN $6 = 'published' THEN $9::timestamptz END)
       RETURNING ${COLUMNS}`,
      [doc.title, doc.body, doc.language, doc.tags, doc.source, doc.status, doc.importId ?? null, by, now],
    );
    return rows[0] as KbDocumentRow;
  },

  /** The document, locked for the caller's transaction when `lock`; null when absent. */
  async find(db: Queryable, id: string, lock = false): Promise<KbDocumentRow | null> {
    const { rows } = await db.query<KbDocumentRow>(
      `SELECT ${COLUMNS} FROM messaging_kb_documents WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ?? null;
  },

  /** Keeps the row as it is now as a version, then writes the new state with the next version number. */
  async update(
    tx: Queryable,
    current: KbDocumentRow,
    next: KbDocumentWrite,
    by: string,
    now: Date,
  ): Promise<KbDocumentRow> {
    await tx.query(
      `INSERT INTO messaging_kb_document_versions
         (document_id, version, title, body, language, tags, status, saved_by, saved_at)
       SELECT id, version, title, body, language, tags, status, updated_by, updated_at
         FROM messaging_kb_documents WHERE id = $1`,
      [current.id],
    );
    const { rows } = await tx.query<KbDocumentRow>(
      `UPDATE messaging_kb_documents
          SET title = $2, body = $3, language = $4, tags = $5, status = $6, version = version + 1,
              updated_by = $7, updated_at = $8,
              published_at = CASE WHEN $6 = 'published' AND status <> 'published' THEN $8::timestamptz
                                  WHEN $6 = 'published' THEN published_at END
        WHERE id = $1
       RETURNING ${COLUMNS}`,
      [current.id, next.title, next.body, next.language, next.tags, next.status, by, now],
    );
    return rows[0] as KbDocumentRow;
  },

  async versions(db: Queryable, id: string): Promise<KbDocumentVersionRow[]> {
    const { rows } = await db.query<KbDocumentVersionRow>(
      `SELECT version, title, body, language, tags, status, saved_by, saved_at
         FROM messaging_kb_document_versions WHERE document_id = $1 ORDER BY version DESC`,
      [id],
    );
    return rows;
  },

  /** One page of documents, the latest change first. */
  async page(db: Queryable, filter: KbDocumentFilter): Promise<Array<KbDocumentRow & { position: string }>> {
    const values: unknown[] = [];
    const where: string[] = [];
    const add = (clause: string, value: unknown) => {
      values.push(value);
      where.push(clause.replace('$?', `$${values.length}`));
    };
    if (filter.status !== undefined) add('status = $?', filter.status);
    if (filter.language !== undefined) add('language = $?', filter.language);
    if (filter.source !== undefined) add('source = $?', filter.source);
    if (filter.tag !== undefined) add('tags @> ARRAY[$?::text]', filter.tag);
    if (filter.after !== undefined) {
      values.push(filter.after[0], filter.after[1]);
      where.push(
        `(updated_at, id) < (timestamptz 'epoch' + $${values.length - 1} * interval '1 microsecond', $${values.length}::uuid)`,
      );
    }
    values.push(filter.limit);
    const { rows } = await db.query<KbDocumentRow & { position: string }>(
      `SELECT ${COLUMNS}, (extract(epoch FROM updated_at) * 1000000)::bigint AS position
         FROM messaging_kb_documents
        ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY updated_at DESC, id DESC
        LIMIT $${values.length}`,
      values,
    );
    return rows;
  },

  /** Document counts per source and status. */
  async counts(db: Queryable): Promise<Array<{ source: KbSource; status: KbStatus; count: number }>> {
    const { rows } = await db.query<{ source: KbSource; status: KbStatus; count: number }>(
      `SELECT source, status, count(*)::int AS count FROM messaging_kb_documents GROUP BY source, status`,
    );
    return rows;
  },
};

export interface KbImportItemRow {
  filename: string;
  documentId: string | null;
  error: string | null;
}

export const kbImportStore = {
  /** Records an import (its items' outcomes filled in later by `finish`); returns its id. */
  async begin(tx: Queryable, by: string, now: Date, itemCount: number): Promise<string> {
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO messaging_kb_imports (created_by, created_at, item_count, imported_count, error_count, items)
       VALUES ($1, $2, $3, 0, 0, '[]') RETURNING id`,
      [by, now, itemCount],
    );
    return (rows[0] as { id: string }).id;
  },

  async finish(tx: Queryable, id: string, items: readonly KbImportItemRow[]): Promise<void> {
    await tx.query(
      `UPDATE messaging_kb_imports SET imported_count = $2, error_count = $3, items = $4 WHERE id = $1`,
      [
        id,
        items.filter((i) => i.error === null).length,
        items.filter((i) => i.error !== null).length,
        JSON.stringify(items),
      ],
    );
  },

  /** The latest import, or null when there was none. */
  async latest(db: Queryable): Promise<{ created_at: Date; items: KbImportItemRow[] } | null> {
    const { rows } = await db.query<{ created_at: Date; items: KbImportItemRow[] }>(
      `SELECT created_at, items FROM messaging_kb_imports ORDER BY created_at DESC, id DESC LIMIT 1`,
    );
    return rows[0] ?? null;
  },
};
