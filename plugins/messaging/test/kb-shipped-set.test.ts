import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../gateway/src/plugin-api.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { pluginDatabase } from '../../../test/support/plugin-database.ts';
import { type Metrics } from '../src/domain/kb-evaluation-metrics.ts';
import { insertKbDocument } from '../src/service/kb-documents.ts';
import { retrieveOutcomes, runFigures } from '../src/service/kb-evaluation.ts';
import { createKbRetrieval, KB_ANSWER_THRESHOLD } from '../src/service/kb-retrieval.ts';
import { loadShippedDocuments, loadShippedEvaluationSet } from '../src/service/kb-shipped-set.ts';

// The shipped evaluation set against the shipped knowledge base, through the real retrieval on PostgreSQL: the
// published thresholds (README, "Knowledge base", "Evaluation"; figures in bench/RESULTS.md).
const PUBLISHED = { heldOutHitAt3: 0.8, hitAt3: 0.9, hitAt1: 0.7, answeredRate: 0.9 };

let test: TestDatabase;
let db: Database;
beforeAll(async () => {
  test = await createTestDatabase();
  db = pluginDatabase(test.url);
});
afterAll(async () => {
  await db?.pool.end();
  await test.drop();
});

const show = (m: Metrics) =>
  `items ${m.items}, hit@1 ${m.hitAt1?.toFixed(3)}, hit@3 ${m.hitAt3?.toFixed(3)}, MRR ${m.mrr?.toFixed(3)}, answered ${m.answeredRate?.toFixed(3)}`;

describe('the shipped evaluation set', () => {
  it('meets the published thresholds on the shipped knowledge base', async () => {
    const documents = loadShippedDocuments();
    const items = loadShippedEvaluationSet(documents);
    const ids = new Map<string, string>();
    const now = new Date();
    for (const doc of documents) {
      const row = await insertKbDocument(
        db,
        {
          title: doc.title,
          body: doc.body,
          language: doc.language,
          tags: [],
          status: 'published',
          source: 'import',
        },
        'ci',
        now,
      );
      ids.set(doc.slug, row.id);
    }
    const outcomes = await retrieveOutcomes(
      createKbRetrieval({ db }),
      items.map((item) => ({
        question: item.question,
        language: item.lang,
        expectedDocumentIds: item.expected.map((slug) => ids.get(slug) as string),
      })),
    );
    const figures = runFigures(
      outcomes,
      items.map((item) => item.heldOut),
      KB_ANSWER_THRESHOLD,
    );
    const misses = items.filter(
      (_, i) =>
        !outcomes[i]?.rankedDocumentIds
          .slice(0, 3)
          .some((id) => outcomes[i]?.expectedDocumentIds.includes(id)),
    );
    console.log(
      [
        `all:      ${show(figures.overall)}`,
        `id:       ${show(figures.byLanguage.id)}`,
        `en:       ${show(figures.byLanguage.en)}`,
        `held out: ${show(figures.heldOut.overall)}`,
        `misses@3: ${misses.map((m) => m.question).join(' | ')}`,
      ].join('\n'),
    );
    expect(figures.heldOut.overall.hitAt3).toBeGreaterThanOrEqual(PUBLISHED.heldOutHitAt3);
    expect(figures.overall.hitAt3).toBeGreaterThanOrEqual(PUBLISHED.hitAt3);
    expect(figures.overall.hitAt1).toBeGreaterThanOrEqual(PUBLISHED.hitAt1);
    expect(figures.overall.answeredRate).toBeGreaterThanOrEqual(PUBLISHED.answeredRate);
  });
});
