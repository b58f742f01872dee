import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { KbChunk } from '../domain/kb-chunking.ts';

/**
 * messaging_kb_chunks and messaging_kb_state (migrations/messaging/0005): the searchable chunks of published
 * documents, the KB version, and the retrieval query (README, "Knowledge base", "Retrieval").
 */

export interface KbChunkHit {
  id: string;
  document_id: string;
  title: string;
  heading: string;
  text: string;
  language: 'id' | 'en';
  score: number;
}

export interface KbSearch {
  /** Query terms: letters and digits only (domain/kb-query.ts), so they are never tsquery syntax. */
  terms: readonly string[];
  /** Also look for the nearest known words to a term no published document uses (short queries: typos). */
  correct: boolean;
  language: 'id' | 'en' | null;
  limit: number;
}

/** The text-search configuration of a language, as SQL over a language expression. */
function config(language: string): string {
  return `(CASE WHEN ${language} = 'en' THEN 'english' ELSE 'messaging_kb_id' END)::regconfig`;
}

/** How many candidate chunks one search reads at most, shared out between the question's words. */
export const KB_CANDIDATE_BUDGET = 600;
/** Of those, how many the exact ranking sees: the ones whose words found weigh the most together. */
export const KB_RANKED_CANDIDATES = 100;
/** Known words a misspelt term may stand for, nearest first. */
const CORRECTIONS_PER_TERM = 2;

/**
 * One statement in three steps (README, "Knowledge base", "Retrieval").
 * **Corrections** (short queries): a term no published document uses gains the nearest known words by trigram
 * similarity (messaging_kb_words, pg_trgm's `%`), as alternatives.
 * **Candidates**: for each word of the question (a lexeme of each language's configuration) its best rows in
 * messaging_kb_postings, at most KB_CANDIDATE_BUDGET / words of them (every chunk holding a rarer word, and of a
 * word most chunks share only the chunks most about it), of which the KB_RANKED_CANDIDATES whose found words
 * weigh the most together.
 * **Ranking** of the candidates only: ts_rank_cd with heading and title words (A) weighing 1 and body words (D)
 * 0.5, divided by the number of terms the question (before corrections) keeps in the chunk's configuration
 * and capped at 1 — about the share of the question found, a heading match counting double. In [0, 1].
 */
function retrievalSql(search: KbSearch, values: unknown[]): string {
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const terms = param(search.terms);
  const limit = param(search.limit);
  const perWord = param(Math.max(1, Math.ceil(KB_CANDIDATE_BUDGET / search.terms.length)));
  const languages = param(search.language === null ? ['id', 'en'] : [search.language]);
  const corrections = search.correct
    ? `SELECT DISTINCT f.word FROM unnest(${terms}::text[]) t(term)
         CROSS JOIN LATERAL (
           SELECT v.word FROM messaging_kb_words v
            WHERE v.word % t.term AND v.language = ANY(${languages})
            ORDER BY v.word <-> t.term, v.word LIMIT ${CORRECTIONS_PER_TERM}) f
        WHERE length(t.term) >= 3
          AND NOT EXISTS (SELECT 1 FROM messaging_kb_words x WHERE x.language = ANY(${languages}) AND x.word = t.term)`
    : `SELECT NULL::text AS word WHERE false`;
  return `
    WITH fixes AS MATERIALIZED (${corrections}
    ), words AS MATERIALIZED (
      SELECT array_cat(${terms}::text[], ARRAY(SELECT word FROM fixes)) AS all_terms
    ), q AS MATERIALIZED (
      SELECT to_tsquery('english', array_to_string(all_terms, ' | ')) AS en,
             to_tsquery('messaging_kb_id', array_to_string(all_terms, ' | ')) AS id,
             numnode(to_tsquery('english', array_to_string(${terms}::text[], ' | '))) AS en_nodes,
             numnode(to_tsquery('messaging_kb_id', array_to_string(${terms}::text[], ' | '))) AS id_nodes,
             array_to_string(all_terms, ' ') AS text
        FROM words
    ), lexemes AS (
      SELECT 'en' AS language, lexeme FROM q, unnest(tsvector_to_array(to_tsvector('english', q.text))) lexeme
      UNION
      SELECT 'id', lexeme FROM q, unnest(tsvector_to_array(to_tsvector('messaging_kb_id', q.text))) lexeme
    ), candidates AS (
      SELECT p.chunk_id AS id
        FROM lexemes l
       CROSS JOIN LATERAL (
             SELECT chunk_id, weight FROM messaging_kb_postings p
              WHERE p.language = l.language AND p.lexeme = l.lexeme
              ORDER BY p.weight DESC LIMIT ${perWord}) p
       WHERE l.language = ANY(${languages})
       GROUP BY p.chunk_id
       ORDER BY sum(p.weight) DESC, p.chunk_id
       LIMIT ${KB_RANKED_CANDIDATES}
    )
    SELECT c.id, c.document_id, c.title, c.heading, c.text, c.language,
           least(1, ts_rank_cd('{0.5, 0.5, 1, 1}', c.tsv, t.q, 0) / greatest(1, (t.nodes + 1) / 2))::float8 AS score
      FROM messaging_kb_chunks c
      CROSS JOIN q
      CROSS JOIN LATERAL (
            SELECT CASE WHEN c.language = 'en' THEN q.en ELSE q.id END AS q,
                   CASE WHEN c.language = 'en' THEN q.en_nodes ELSE q.id_nodes END AS nodes) t
     WHERE c.id IN (SELECT id FROM candidates) AND c.tsv @@ t.q
     ORDER BY score DESC, c.id
     LIMIT ${limit}`;
}

export const kbChunkStore = {
  /** The best chunks for a query, best first (one statement; the GIN indexes find the candidates). */
  async search(db: Queryable, search: KbSearch): Promise<KbChunkHit[]> {
    if (search.terms.length === 0) return [];
    const values: unknown[] = [];
    const sql = retrievalSql(search, values);
    const { rows } = await db.query<KbChunkHit>(sql, values);
    return rows;
  },

  /** Replaces a document's chunks (none: it is not searched). */
  async replace(
    tx: Queryable,
    document: { id: string; language: 'id' | 'en'; title: string },
    chunks: readonly KbChunk[],
  ): Promise<void> {
    // The postings go with their chunks (ON DELETE CASCADE).
    await tx.query(`DELETE FROM messaging_kb_chunks WHERE document_id = $1`, [document.id]);
    if (chunks.length === 0) return;
    await tx.query(
      `INSERT INTO messaging_kb_chunks (document_id, ord, language, title, heading, text, tsv)
       SELECT $1, u.ord, $2, $3, u.heading, u.text,
              setweight(to_tsvector(${config('$2')}, $3 || ' ' || u.heading), 'A')
                || setweight(to_tsvector(${config('$2')}, u.text), 'D')
         FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS u(heading, text, ord)`,
      [
        document.id,
        document.language,
        document.title,
        chunks.map((c) => c.heading),
        chunks.map((c) => c.text),
      ],
    );
    await tx.query(
      `INSERT INTO messaging_kb_postings (chunk_id, language, lexeme, weight)
       SELECT c.id, c.language, u.lexeme,
              (SELECT count(*) FILTER (WHERE w = 'A') + 0.5 * count(*) FILTER (WHERE w <> 'A') FROM unnest(u.weights) w)
                / ln(length(c.tsv) + 2)
         FROM messaging_kb_chunks c CROSS JOIN LATERAL unnest(c.tsv) u
        WHERE c.document_id = $1`,
      [document.id],
    );
    // In word order: two documents published at once insert shared new words in the same order (no deadlock).
    await tx.query(
      `INSERT INTO messaging_kb_words (language, word)
       SELECT DISTINCT c.language, w.word
         FROM messaging_kb_chunks c
        CROSS JOIN LATERAL unnest(tsvector_to_array(
              to_tsvector('simple', unaccent(lower(c.title || ' ' || c.heading || ' ' || c.text))))) w(word)
        WHERE c.document_id = $1 AND w.word ~ '^[[:alnum:]]{3,40}$'
        ORDER BY c.language, w.word
       ON CONFLICT DO NOTHING`,
      [document.id],
    );
  },

  /** One more KB version (what is published changed); returns it. */
  async bumpVersion(tx: Queryable): Promise<number> {
    const { rows } = await tx.query<{ version: string }>(
      `UPDATE messaging_kb_state SET version = version + 1 RETURNING version`,
    );
    return Number(rows[0]?.version ?? 0);
  },

  async version(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ version: string }>(`SELECT version FROM messaging_kb_state`);
    return Number(rows[0]?.version ?? 0);
  },
};

/**
 * The current KB version: one more on every change to what is published (README, "Knowledge base").
 * Evaluation runs store it with their results.
 */
export function kbVersion(db: Queryable): Promise<number> {
  return kbChunkStore.version(db);
}
