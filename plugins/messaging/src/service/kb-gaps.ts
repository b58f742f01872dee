import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import type { Normaliser } from '../classifier/normalise.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { gapKey, isoWeek } from '../domain/kb-gap-key.ts';
import {
  GAP_EXAMPLES,
  GAP_WEEKS,
  type KbGapListQuery,
  KbGapPositionSchema,
  type KbGapRefreshView,
  type KbGapView,
} from '../domain/kb-gap-schemas.ts';
import type { StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { kbVersion as currentKbVersion } from '../store/kb-chunk-store.ts';
import { GAP_KINDS, kbGapStore, type GapExampleRow, type GapGroupRow } from '../store/kb-gap-store.ts';
import { requireAdmin } from './kb-documents.ts';
import { createKbRetrieval, KB_ANSWER_THRESHOLD } from './kb-retrieval.ts';

/** Tags the gap list's cursors. */
const CURSOR_KIND = 'kb-gaps';
/** Source rows one collection transaction reads per kind. */
const COLLECT_BATCH = 500;
/** Groups one pass searches; the rest wait for the next pass (the background loop runs it straight away). */
const CHECK_BATCH = 100;
const DAY_MS = 86_400_000;

export interface KbGapDeps {
  db: Database;
  clock: Clock;
  /** The classifier's own compiled normaliser (grouping keys: domain/kb-gap-key.ts). */
  normalise: Normaliser;
}

/** What one pass did; `more`: a batch was full, another pass has work. */
export interface GapPassResult {
  collected: number;
  closed: number;
  kbVersion: number;
  more: boolean;
}

/**
 * One gap pass (README, "Knowledge base", "Gaps"): collects a batch of new candidates from each source, then
 * searches a batch of the open groups not searched at the current KB version, closing those retrieval
 * answers. Safe on every replica at once: collections take turns (an advisory lock) and count a candidate
 * only when they recorded it; searches of one group at one version agree.
 */
export async function gapPass(deps: KbGapDeps): Promise<GapPassResult> {
  const collected = await collect(deps);
  const kbVersion = await currentKbVersion(deps.db);
  const keys = await kbGapStore.unchecked(deps.db, kbVersion, CHECK_BATCH);
  const closed = await check(deps, kbVersion, keys);
  return {
    collected: collected.count,
    closed,
    kbVersion,
    more: collected.full || keys.length === CHECK_BATCH,
  };
}

/** `POST /api/v1/kb/gaps/refresh`: passes until nothing is left to do, for admins. */
export async function refreshGaps(deps: KbGapDeps, scope: StaffScope): Promise<KbGapRefreshView> {
  requireAdmin(scope);
  const total = { collected: 0, closed: 0, kbVersion: 0 };
  for (;;) {
    const pass = await gapPass(deps);
    total.collected += pass.collected;
    total.closed += pass.closed;
    total.kbVersion = pass.kbVersion;
    if (!pass.more) return total;
  }
}

async function collect(deps: KbGapDeps): Promise<{ count: number; full: boolean }> {
  return deps.db.transaction(async (tx) => {
    await kbGapStore.lockCollection(tx);
    let count = 0;
    let full = false;
    for (const kind of GAP_KINDS) {
      const rows = await kbGapStore.uncollected(tx, kind, COLLECT_BATCH);
      full ||= rows.length === COLLECT_BATCH;
      count += await kbGapStore.record(
        tx,
        rows.map((row) => ({ ...row, kind, key: gapKey(deps.normalise, row.text) })),
      );
    }
    return { count, full };
  });
}

/** Searches each group's key; the best chunk at or above the answer threshold closes it with its document. */
async function check(deps: KbGapDeps, kbVersion: number, keys: readonly string[]): Promise<number> {
  const retrieval = createKbRetrieval(deps);
  const results: Array<{ key: string; closedBy: string | null }> = [];
  for (const key of keys) {
    const [best] = await retrieval.search(key, { limit: 1 });
    results.push({ key, closedBy: best && best.score >= KB_ANSWER_THRESHOLD ? best.documentId : null });
  }
  return kbGapStore.checked(deps.db, kbVersion, results, deps.clock.now());
}

/** One page of gap groups, the most candidates first, with their weekly counts and newest examples. */
export async function listGaps(
  deps: KbGapDeps,
  scope: StaffScope,
  query: KbGapListQuery,
): Promise<{ items: KbGapView[]; nextCursor: string | null }> {
  requireAdmin(scope);
  let after: readonly [number, string] | null = null;
  if (query.cursor !== undefined) {
    after = decodeCursor(CURSOR_KIND, query.cursor, KbGapPositionSchema);
    if (!after) throw messagingErrors.create('messaging.cursor.invalid');
  }
  const rows = await kbGapStore.page(deps.db, {
    status: query.status === 'all' ? null : query.status,
    after,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const keys = page.map((row) => row.key);
  const weeks = lastWeeks(deps.clock.now());
  const [weekly, examples] = await Promise.all([
    kbGapStore.weekly(deps.db, keys, weeks.since),
    kbGapStore.examples(deps.db, keys, GAP_EXAMPLES),
  ]);
  const counts = new Map(weekly.map((w) => [`${w.key}\n${w.week}`, w.count]));
  const last = page.at(-1);
  return {
    items: page.map((row) =>
      gapView(
        row,
        weeks.labels.map((week) => ({ week, count: counts.get(`${row.key}\n${week}`) ?? 0 })),
        examples.filter((e) => e.key === row.key),
      ),
    ),
    nextCursor:
      rows.length > query.limit && last ? encodeCursor(CURSOR_KIND, [last.candidate_count, last.key]) : null,
  };
}

/** The last GAP_WEEKS ISO weeks up to `now`'s, oldest first, and the Monday (UTC) the oldest starts. */
function lastWeeks(now: Date): { labels: string[]; since: Date } {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const monday = midnight - ((now.getUTCDay() + 6) % 7) * DAY_MS;
  const since = monday - (GAP_WEEKS - 1) * 7 * DAY_MS;
  const labels = Array.from({ length: GAP_WEEKS }, (_, i) => isoWeek(new Date(since + i * 7 * DAY_MS)));
  return { labels, since: new Date(since) };
}

function gapView(row: GapGroupRow, weeks: KbGapView['weeks'], examples: GapExampleRow[]): KbGapView {
  return {
    key: row.key,
    status: row.status,
    count: row.candidate_count,
    firstSeenAt: row.first_seen_at.toISOString(),
    lastSeenAt: row.last_seen_at.toISOString(),
    weeks,
    examples: examples.map((e) => ({
      messageId: e.message_id,
      text: e.text,
      kind: e.kind,
      at: e.seen_at.toISOString(),
    })),
    closedBy:
      row.status === 'closed' && row.closed_by_document_id && row.closed_at && row.closed_kb_version
        ? {
            documentId: row.closed_by_document_id,
            title: row.closed_by_title,
            kbVersion: Number(row.closed_kb_version),
            closedAt: row.closed_at.toISOString(),
          }
        : null,
  };
}
