import type { Database } from '../../../../gateway/src/plugin-api.ts';
import { KB_SHORT_QUERY_TERMS, queryTerms } from '../domain/kb-query.ts';
import { kbChunkStore } from '../store/kb-chunk-store.ts';

/** One chunk retrieval found, with its score in [0, 1] (README, "Knowledge base", "Retrieval"). */
export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  title: string;
  text: string;
  score: number;
  language: 'id' | 'en';
}

/**
 * The score a chunk needs before the bot answers with it. Scores mean the same whatever the query (about the
 * share of the query's words the chunk holds, heading words counting double), so one threshold serves every
 * question.
 */
export const KB_ANSWER_THRESHOLD = 0.4;

const DEFAULT_LIMIT = 5;
const MAX_LIMIT = 20;

/**
 * Retrieval over the published knowledge base, in PostgreSQL (README, "Knowledge base", "Retrieval"): full-text
 * search with the chunk language's configuration (`english`, or the Indonesian `messaging_kb_id`) over a
 * bounded set of candidates, a misspelt word of a short query corrected by trigram similarity to the words
 * the KB uses. One statement per search. `language` limits the chunks to one language; `limit` is 1 to 20
 * (default 5).
 */
export function createKbRetrieval(deps: { db: Database }): {
  search(query: string, options?: { language?: 'id' | 'en'; limit?: number }): Promise<RetrievedChunk[]>;
} {
  return {
    async search(query, options = {}) {
      const terms = queryTerms(query);
      const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(options.limit ?? DEFAULT_LIMIT)));
      const hits = await kbChunkStore.search(deps.db, {
        terms,
        correct: terms.length <= KB_SHORT_QUERY_TERMS,
        language: options.language ?? null,
        limit,
      });
      return hits.map((hit) => ({
        chunkId: hit.id,
        documentId: hit.document_id,
        title: hit.title,
        text: hit.heading === hit.title ? hit.text : `${hit.heading}\n\n${hit.text}`,
        score: hit.score,
        language: hit.language,
      }));
    },
  };
}

export type KbRetrieval = ReturnType<typeof createKbRetrieval>;
