import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { INTENTS } from '../classifier/types.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import {
  type KbEvalItemInput,
  type KbEvalItemListQuery,
  type KbEvalItemView,
  KbEvalPositionSchema,
  type KbEvalRunListQuery,
} from '../domain/kb-evaluation-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { kbVersion } from '../store/kb-chunk-store.ts';
import { type EvalItemRow, kbEvaluationStore } from '../store/kb-evaluation-store.ts';
import { type EvaluationRun, runEvaluation, runView, seedEvaluationSet } from './kb-evaluation.ts';
import { createKbRetrieval, KB_ANSWER_THRESHOLD } from './kb-retrieval.ts';

/** Tags the lists' cursors. */
const ITEMS_CURSOR = 'kb-eval-items';
const RUNS_CURSOR = 'kb-eval-runs';

export interface KbEvaluationDeps {
  db: Database;
  clock: Clock;
}

/** One page of the evaluation set, oldest first, filtered. */
export async function listEvaluationItems(
  deps: KbEvaluationDeps,
  query: KbEvalItemListQuery,
): Promise<{ items: KbEvalItemView[]; nextCursor: string | null }> {
  const after = query.cursor === undefined ? undefined : position(ITEMS_CURSOR, query.cursor);
  const rows = await kbEvaluationStore.pageItems(deps.db, {
    limit: query.limit + 1,
    ...(query.origin === undefined ? {} : { origin: query.origin }),
    ...(query.language === undefined ? {} : { language: query.language }),
    ...(query.heldOut === undefined ? {} : { heldOut: query.heldOut === 'true' }),
    ...(after === undefined ? {} : { after }),
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last ? encodeCursor(ITEMS_CURSOR, [Number(last.position), last.id]) : null;
  return { items: page.map(itemView), nextCursor };
}

export async function readEvaluationItem(deps: KbEvaluationDeps, id: string): Promise<KbEvalItemView> {
  const row = await kbEvaluationStore.getItem(deps.db, id);
  if (!row) throw messagingErrors.create('messaging.kb.evaluation_item_not_found');
  return itemView(row);
}

/** Adds an item written by an admin (`origin: manual`). */
export async function createEvaluationItem(
  deps: KbEvaluationDeps,
  input: KbEvalItemInput,
): Promise<KbEvalItemView> {
  await requireKnownDocuments(deps, input.expectedDocumentIds);
  return itemView(await kbEvaluationStore.createItem(deps.db, input, deps.clock.now()));
}

/** Replaces an item's fields; its origin stays. */
export async function replaceEvaluationItem(
  deps: KbEvaluationDeps,
  id: string,
  input: KbEvalItemInput,
): Promise<KbEvalItemView> {
  await requireKnownDocuments(deps, input.expectedDocumentIds);
  const row = await kbEvaluationStore.updateItem(deps.db, id, input, deps.clock.now());
  if (!row) throw messagingErrors.create('messaging.kb.evaluation_item_not_found');
  return itemView(row);
}

export async function deleteEvaluationItem(deps: KbEvaluationDeps, id: string): Promise<void> {
  if (!(await kbEvaluationStore.deleteItem(deps.db, id)))
    throw messagingErrors.create('messaging.kb.evaluation_item_not_found');
}

/** Seeds from the gold set and staff corrections; answers how many of each were added. */
export function seedEvaluationItems(deps: KbEvaluationDeps): Promise<{ gold: number; corrections: number }> {
  return seedEvaluationSet(deps, INTENTS);
}

/**
 * Runs the set against the published KB, one run at a time across replicas (the store's advisory lock): a start
 * while one runs is refused with `messaging.kb.evaluation_running` and records nothing; an empty set is refused
 * with `messaging.kb.evaluation_set_empty`.
 */
export async function startEvaluationRun(deps: KbEvaluationDeps, by: string): Promise<EvaluationRun> {
  const locked = await kbEvaluationStore.withRunLock(deps.db, async () => {
    if (!(await kbEvaluationStore.hasItems(deps.db)))
      throw messagingErrors.create('messaging.kb.evaluation_set_empty');
    return runEvaluation(
      {
        db: deps.db,
        clock: deps.clock,
        retrieval: createKbRetrieval({ db: deps.db }),
        kbVersion,
        threshold: KB_ANSWER_THRESHOLD,
      },
      by,
    );
  });
  if (locked === null) throw messagingErrors.create('messaging.kb.evaluation_running');
  return locked.value;
}

/** One page of runs, newest first, each with its delta to the run before it. */
export async function listEvaluationRuns(
  deps: KbEvaluationDeps,
  query: KbEvalRunListQuery,
): Promise<{ items: EvaluationRun[]; nextCursor: string | null }> {
  const before = query.cursor === undefined ? undefined : position(RUNS_CURSOR, query.cursor);
  // The store reads one row more than asked: limit + 1 asked gives this page, whether there is a next one,
  // and the predecessor of the page's last run.
  const rows = await kbEvaluationStore.pageRuns(deps.db, {
    limit: query.limit + 1,
    ...(before === undefined ? {} : { before }),
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last ? encodeCursor(RUNS_CURSOR, [Number(last.position), last.id]) : null;
  return { items: page.map((row, i) => runView(row, rows[i + 1] ?? null)), nextCursor };
}

export async function readEvaluationRun(deps: KbEvaluationDeps, id: string): Promise<EvaluationRun> {
  const row = await kbEvaluationStore.getRun(deps.db, id);
  if (!row) throw messagingErrors.create('messaging.kb.evaluation_run_not_found');
  const [previous] = await kbEvaluationStore.pageRuns(deps.db, {
    limit: 1,
    before: [Number(row.position), row.id],
  });
  return runView(row, previous ?? null);
}

function position(kind: string, cursor: string): readonly [number, string] {
  const decoded = decodeCursor(kind, cursor, KbEvalPositionSchema);
  if (!decoded) throw messagingErrors.create('messaging.cursor.invalid');
  return decoded;
}

/** An expected document must exist (in any status): a mistyped id would only ever count as a miss. */
async function requireKnownDocuments(deps: KbEvaluationDeps, ids: readonly string[]): Promise<void> {
  const unknown = await kbEvaluationStore.unknownDocuments(deps.db, ids);
  if (unknown.length > 0)
    throw messagingErrors.create('messaging.kb.evaluation_document_unknown', {
      detail: `no knowledge-base document ${unknown.join(', ')}`,
    });
}

function itemView(row: EvalItemRow): KbEvalItemView {
  return {
    id: row.id,
    question: row.question,
    language: row.language,
    expectedDocumentIds: row.expected_document_ids,
    expectedIntent: row.expected_intent,
    origin: row.origin,
    heldOut: row.held_out,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
