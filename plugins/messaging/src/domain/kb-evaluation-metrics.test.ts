import { describe, expect, it } from 'vitest';
import {
  computeMetrics,
  computeRunMetrics,
  distinctDocuments,
  firstHitRank,
  type ItemOutcome,
  metricsDelta,
} from './kb-evaluation-metrics.ts';

const outcome = (over: Partial<ItemOutcome>): ItemOutcome => ({
  language: 'id',
  expectedDocumentIds: ['a'],
  rankedDocumentIds: [],
  topScore: null,
  ...over,
});

describe('KB evaluation metrics', () => {
  it('ranks the first expected document among the distinct ranked ones', () => {
    expect(firstHitRank({ expectedDocumentIds: ['b', 'c'], rankedDocumentIds: ['a', 'c', 'b'] })).toBe(2);
    expect(firstHitRank({ expectedDocumentIds: ['x'], rankedDocumentIds: ['a'] })).toBeNull();
    expect(distinctDocuments([{ documentId: 'a' }, { documentId: 'b' }, { documentId: 'a' }])).toEqual([
      'a',
      'b',
    ]);
  });

  it('computes hit@1, hit@3 and MRR over the items with expected documents, the answered rate over all', () => {
    const metrics = computeMetrics(
      [
        outcome({ rankedDocumentIds: ['a'], topScore: 0.9 }), // rank 1
        outcome({ rankedDocumentIds: ['x', 'y', 'a'], topScore: 0.5 }), // rank 3
        outcome({ rankedDocumentIds: ['x', 'y', 'z', 'a'], topScore: 0.1 }), // rank 4: no hit@3
        outcome({ rankedDocumentIds: [], topScore: null }), // nothing found
        outcome({ expectedDocumentIds: [], rankedDocumentIds: ['q'], topScore: 0.8 }), // intent-only
      ],
      0.3,
    );
    expect(metrics).toEqual({
      items: 5,
      scored: 4,
      hitAt1: 0.25,
      hitAt3: 0.5,
      mrr: (1 + 1 / 3 + 1 / 4 + 0) / 4,
      answeredRate: 3 / 5,
    });
  });

  it('answers null for a slice with no items, and splits by language', () => {
    expect(computeMetrics([], 0.3)).toEqual({
      items: 0,
      scored: 0,
      hitAt1: null,
      hitAt3: null,
      mrr: null,
      answeredRate: null,
    });
    const run = computeRunMetrics(
      [outcome({ language: 'en', rankedDocumentIds: ['a'], topScore: 1 }), outcome({ language: 'id' })],
      0.3,
    );
    expect(run.byLanguage.en.hitAt1).toBe(1);
    expect(run.byLanguage.id.hitAt1).toBe(0);
    expect(run.overall.hitAt1).toBe(0.5);
  });

  it('gives the delta to the previous run, null for a first run or a missing figure', () => {
    const now = computeMetrics([outcome({ rankedDocumentIds: ['a'], topScore: 1 })], 0.3);
    const before = computeMetrics([outcome({}), outcome({ rankedDocumentIds: ['a'], topScore: 1 })], 0.3);
    expect(metricsDelta(now, null)).toBeNull();
    expect(metricsDelta(now, before)).toEqual({ hitAt1: 0.5, hitAt3: 0.5, mrr: 0.5, answeredRate: 0.5 });
    expect(metricsDelta(now, computeMetrics([], 0.3))).toEqual({
      hitAt1: null,
      hitAt3: null,
      mrr: null,
      answeredRate: null,
    });
  });
});
