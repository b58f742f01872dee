import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { loadGoldSet } from '../classifier/gold-set.ts';
import {
  computeRunMetrics,
  distinctDocuments,
  type ItemOutcome,
  metricsDelta,
  type MetricsDelta,
  type RunMetrics,
} from '../domain/kb-evaluation-metrics.ts';
import {
  type EvalItemRow,
  type EvalRunRow,
  type EvalSeed,
  kbEvaluationStore,
} from '../store/kb-evaluation-store.ts';

/** What the evaluation needs of retrieval: the shape of `createKbRetrieval` (src/service/kb-retrieval.ts). */
export interface KbSearch {
  search(
    query: string,
    options?: { language?: 'id' | 'en'; limit?: number },
  ): Promise<ReadonlyArray<{ documentId: string; score: number }>>;
}

export interface EvaluationDeps {
  db: Queryable;
  clock: { now(): Date };
  retrieval: KbSearch;
  /** The KB version now (src/store: `kbVersion`). */
  kbVersion(db: Queryable): Promise<number>;
  /** The score a chunk needs for the bot to answer with it. */
  threshold: number;
}

/** How deep a run looks for an expected document: MRR counts a hit down to this rank. */
export const EVALUATION_DEPTH = 10;

/** A run's figures: overall and per language, and the same for the held-out items alone. */
export interface RunFigures extends RunMetrics {
  heldOut: RunMetrics;
}

export interface EvaluationRun {
  id: string;
  kbVersion: number;
  threshold: number;
  itemCount: number;
  metrics: RunFigures;
  /** This run's overall figures minus the previous run's; null for the first run. */
  delta: { overall: MetricsDelta | null; heldOut: MetricsDelta | null; previousKbVersion: number | null };
  createdBy: string;
  createdAt: string;
}

/** Retrieval's answer for each item, one search at a time (a run must not starve the bot's own searches). */
export async function retrieveOutcomes(
  retrieval: KbSearch,
  items: ReadonlyArray<{ question: string; language: 'id' | 'en'; expectedDocumentIds: readonly string[] }>,
): Promise<ItemOutcome[]> {
  const outcomes: ItemOutcome[] = [];
  for (const item of items) {
    const chunks = await retrieval.search(item.question, {
      language: item.language,
      limit: EVALUATION_DEPTH,
    });
    outcomes.push({
      language: item.language,
      expectedDocumentIds: item.expectedDocumentIds,
      rankedDocumentIds: distinctDocuments(chunks),
      topScore: chunks[0]?.score ?? null,
    });
  }
  return outcomes;
}

/** The figures of a set of outcomes, with `heldOut` marking the held-out items. */
export function runFigures(
  outcomes: readonly ItemOutcome[],
  heldOut: readonly boolean[],
  threshold: number,
): RunFigures {
  return {
    ...computeRunMetrics(outcomes, threshold),
    heldOut: computeRunMetrics(
      outcomes.filter((_, index) => heldOut[index]),
      threshold,
    ),
  };
}

/**
 * Runs the evaluation set against the published KB and stores the run with the KB version read before the
 * first search (an edit published during the run is attributed to the next run).
 */
export async function runEvaluation(deps: EvaluationDeps, createdBy: string): Promise<EvaluationRun> {
  const kbVersion = await deps.kbVersion(deps.db);
  const items = await kbEvaluationStore.allItems(deps.db);
  const outcomes = await retrieveOutcomes(deps.retrieval, items.map(itemInput));
  const metrics = runFigures(
    outcomes,
    items.map((item) => item.held_out),
    deps.threshold,
  );
  const row = await kbEvaluationStore.insertRun(
    deps.db,
    { kbVersion, threshold: deps.threshold, itemCount: items.length, metrics, createdBy },
    deps.clock.now(),
  );
  const [previous] = await kbEvaluationStore.pageRuns(deps.db, {
    limit: 1,
    before: [Number(row.position), row.id],
  });
  return runView(row, previous ?? null);
}

function itemInput(row: EvalItemRow) {
  return { question: row.question, language: row.language, expectedDocumentIds: row.expected_document_ids };
}

/** A stored run as the API shows it, with the delta to the run before it. */
export function runView(row: EvalRunRow, previous: EvalRunRow | null): EvaluationRun {
  const metrics = row.metrics as RunFigures;
  const before = previous ? (previous.metrics as RunFigures) : null;
  return {
    id: row.id,
    kbVersion: Number(row.kb_version),
    threshold: row.threshold,
    itemCount: row.item_count,
    metrics,
    delta: {
      overall: metricsDelta(metrics.overall, before?.overall ?? null),
      heldOut: metricsDelta(metrics.heldOut.overall, before?.heldOut.overall ?? null),
      previousKbVersion: previous ? Number(previous.kb_version) : null,
    },
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
  };
}

/**
 * Seeds the evaluation set from the classifier's gold set (each utterance with its intent; the gold set's own
 * held-out split) and from staff intent corrections. Repeatable: only what was never seeded is added.
 */
export async function seedEvaluationSet(
  deps: Pick<EvaluationDeps, 'db' | 'clock'>,
  intents: readonly string[],
): Promise<{ gold: number; corrections: number }> {
  const gold: EvalSeed[] = loadGoldSet().map((line) => ({
    question: line.text.slice(0, 1000),
    language: line.lang,
    expectedDocumentIds: [],
    expectedIntent: line.intent,
    heldOut: line.heldOut,
    origin: 'gold',
    seedKey: `gold:${line.lang}:${line.intent}:${line.text}`.slice(0, 1100),
  }));
  const now = deps.clock.now();
  return {
    gold: await kbEvaluationStore.seed(deps.db, gold, now),
    corrections: await kbEvaluationStore.seed(
      deps.db,
      await kbEvaluationStore.corrections(deps.db, intents),
      now,
    ),
  };
}
