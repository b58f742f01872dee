import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { compileFaqPhrases, type FaqMatch, type FaqPhraseTable } from '../classifier/faq-phrases.ts';
import { faqStore } from '../store/faq-store.ts';

/** The FAQ answers processing consults: reloaded from the database when an entry changed. */
export interface FaqAnswers {
  /**
   * Reloads the published questions when their version in the database moved (any write of an entry, on any
   * replica, bumps it): one small read per processing batch, so the next batch after an edit sees it.
   */
  refresh(db: Queryable): Promise<void>;
  match(text: string | null, language: 'id' | 'en'): FaqMatch | null;
}

/** The FAQ answers over the classifier's normaliser; empty until the first `refresh`. */
export function createFaqAnswers(normalise: (text: string) => string[]): FaqAnswers {
  let version: string | null = null;
  let table: FaqPhraseTable = compileFaqPhrases([], normalise);
  return {
    async refresh(db) {
      const current = await faqStore.phrasesVersion(db);
      if (current === version) return;
      table = compileFaqPhrases(await faqStore.listPublished(db), normalise);
      version = current;
    },
    match: (text, language) => table.match(text, language),
  };
}
