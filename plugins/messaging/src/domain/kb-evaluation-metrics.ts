/**
 * The KB evaluation's figures (README, "Knowledge base", "Evaluation"): pure functions over what retrieval returned
 * for each item of the evaluation set, so the run, the CI test of the shipped set and the unit tests all
 * compute them the same way.
 */

export type KbLanguage = 'id' | 'en';

/** What retrieval answered for one evaluation item. */
export interface ItemOutcome {
  language: KbLanguage;
  /** The documents that answer the item; empty for an item that only names an intent. */
  expectedDocumentIds: readonly string[];
  /** The distinct documents retrieval returned, best first. */
  rankedDocumentIds: readonly string[];
  /** The best chunk's score, null when retrieval found nothing. */
  topScore: number | null;
}

export interface Metrics {
  /** Items in this slice. */
  items: number;
  /** Items with expected documents: the ones hit@k and MRR are computed over. */
  scored: number;
  hitAt1: number | null;
  hitAt3: number | null;
  mrr: number | null;
  /** Share of all items whose best chunk scored at or above the answer threshold. */
  answeredRate: number | null;
}

export interface RunMetrics {
  overall: Metrics;
  byLanguage: Record<KbLanguage, Metrics>;
}

/** 1-based rank of the first expected document among the ranked ones; null when none is there. */
export function firstHitRank(
  outcome: Pick<ItemOutcome, 'expectedDocumentIds' | 'rankedDocumentIds'>,
): number | null {
  const expected = new Set(outcome.expectedDocumentIds);
  const index = outcome.rankedDocumentIds.findIndex((id) => expected.has(id));
  return index === -1 ? null : index + 1;
}

/** The distinct document ids of ranked chunks, in the order of their best chunk. */
export function distinctDocuments(chunks: ReadonlyArray<{ documentId: string }>): string[] {
  return [...new Set(chunks.map((chunk) => chunk.documentId))];
}

const share = (count: number, total: number): number | null => (total === 0 ? null : count / total);

/** hit@1, hit@3, MRR (over the items with expected documents) and the answered rate (over all items). */
export function computeMetrics(outcomes: readonly ItemOutcome[], threshold: number): Metrics {
  const scored = outcomes.filter((o) => o.expectedDocumentIds.length > 0);
  const ranks = scored.map(firstHitRank);
  const answered = outcomes.filter((o) => o.topScore !== null && o.topScore >= threshold).length;
  return {
    items: outcomes.length,
    scored: scored.length,
    hitAt1: share(ranks.filter((r) => r !== null && r <= 1).length, scored.length),
    hitAt3: share(ranks.filter((r) => r !== null && r <= 3).length, scored.length),
    mrr: share(
      ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / r), 0),
      scored.length,
    ),
    answeredRate: share(answered, outcomes.length),
  };
}

/** The metrics overall and per language. */
export function computeRunMetrics(outcomes: readonly ItemOutcome[], threshold: number): RunMetrics {
  return {
    overall: computeMetrics(outcomes, threshold),
    byLanguage: {
      id: computeMetrics(
        outcomes.filter((o) => o.language === 'id'),
        threshold,
      ),
      en: computeMetrics(
        outcomes.filter((o) => o.language === 'en'),
        threshold,
      ),
    },
  };
}

export type MetricsDelta = Record<'hitAt1' | 'hitAt3' | 'mrr' | 'answeredRate', number | null>;

const FIGURES = ['hitAt1', 'hitAt3', 'mrr', 'answeredRate'] as const;

/** This run's figures minus the previous run's (positive: better); null where either side has none. */
export function metricsDelta(current: Metrics, previous: Metrics | null): MetricsDelta | null {
  if (previous === null) return null;
  const delta = {} as MetricsDelta;
  for (const figure of FIGURES) {
    const now = current[figure];
    const before = previous[figure];
    delta[figure] = now === null || before === null ? null : round(now - before);
  }
  return delta;
}

/** Six decimals: a difference of two shares should not show floating-point noise (0.30000000000000004). */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
