import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { INTENTS } from '../src/classifier/index.ts';
import { type KbSearch, runEvaluation, seedEvaluationSet } from '../src/service/kb-evaluation.ts';
import { kbEvaluationStore } from '../src/store/kb-evaluation-store.ts';

// The evaluation against the database, with retrieval as a table of answers: what a run stores, the KB version
// it names, and the delta to the run before it. Retrieval itself is tested with the knowledge base's own suites.
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const DORMS = '00000000-0000-4000-8000-000000000001';
const FEES = '00000000-0000-4000-8000-000000000002';
const clock = { now: () => new Date() };

/** Retrieval answering from a fixed table: question → documents and the best score. */
function tableRetrieval(table: Record<string, { documents: string[]; score: number }>): KbSearch {
  return {
    search: (query) => {
      const row = table[query];
      return Promise.resolve(
        row ? row.documents.map((documentId, i) => ({ documentId, score: row.score - i * 0.01 })) : [],
      );
    },
  };
}

describe('KB evaluation runs', () => {
  it('seeds from the gold set once, and a second seed adds nothing', async () => {
    const first = await seedEvaluationSet({ db: db.pool, clock }, INTENTS);
    expect(first.gold).toBeGreaterThan(300);
    expect(first.corrections).toBe(0);
    expect(await seedEvaluationSet({ db: db.pool, clock }, INTENTS)).toEqual({ gold: 0, corrections: 0 });
    const items = await kbEvaluationStore.allItems(db.pool);
    expect(items.every((item) => item.origin === 'gold' && item.expected_intent !== null)).toBe(true);
    expect(items.some((item) => item.held_out)).toBe(true);
    await db.pool.query('DELETE FROM messaging_kb_eval_items');
  });

  it('stores each run with its KB version and figures, and the delta to the previous run', async () => {
    const now = new Date();
    await kbEvaluationStore.createItem(
      db.pool,
      {
        question: 'ada asrama?',
        language: 'id',
        expectedDocumentIds: [DORMS],
        expectedIntent: null,
        heldOut: true,
      },
      now,
    );
    await kbEvaluationStore.createItem(
      db.pool,
      {
        question: 'how much',
        language: 'en',
        expectedDocumentIds: [FEES],
        expectedIntent: null,
        heldOut: false,
      },
      now,
    );
    const deps = { db: db.pool, clock, threshold: 0.4 };
    const before = await runEvaluation(
      {
        ...deps,
        kbVersion: () => Promise.resolve(3),
        retrieval: tableRetrieval({ 'how much': { documents: [DORMS, FEES], score: 0.5 } }),
      },
      'admin-1',
    );
    expect(before.kbVersion).toBe(3);
    expect(before.metrics.overall).toMatchObject({
      items: 2,
      hitAt1: 0,
      hitAt3: 0.5,
      mrr: 0.25,
      answeredRate: 0.5,
    });
    expect(before.metrics.byLanguage.id).toMatchObject({ hitAt3: 0, answeredRate: 0 });
    expect(before.metrics.heldOut.overall).toMatchObject({ items: 1, hitAt3: 0 });
    expect(before.delta.overall).toBeNull();

    const after = await runEvaluation(
      {
        ...deps,
        kbVersion: () => Promise.resolve(4),
        retrieval: tableRetrieval({
          'how much': { documents: [FEES], score: 0.6 },
          'ada asrama?': { documents: [DORMS], score: 0.9 },
        }),
      },
      'admin-1',
    );
    expect(after.metrics.overall).toMatchObject({ hitAt1: 1, hitAt3: 1, mrr: 1, answeredRate: 1 });
    expect(after.delta).toEqual({
      overall: { hitAt1: 1, hitAt3: 0.5, mrr: 0.75, answeredRate: 0.5 },
      heldOut: { hitAt1: 1, hitAt3: 1, mrr: 1, answeredRate: 1 },
      previousKbVersion: 3,
    });
    const runs = await kbEvaluationStore.pageRuns(db.pool, { limit: 10 });
    expect(runs.map((run) => Number(run.kb_version))).toEqual([4, 3]);
  });
});
