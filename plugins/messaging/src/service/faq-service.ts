import { z } from 'zod';
import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import type {
  FaqConflict,
  FaqConflictListQuery,
  FaqCreate,
  FaqEntry,
  FaqListQuery,
  FaqRunListQuery,
  FaqSyncRun,
  FaqUpdate,
} from '../domain/faq-schemas.ts';
import { upstreamHash } from '../domain/faq-sync-plan.ts';
import type { StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { mirrorFaqIntoKb } from './kb-faq-mirror.ts';
import { faqStore } from '../store/faq-store.ts';
import { faqSyncStore } from '../store/faq-sync-store.ts';

/**
 * The FAQ's use cases (README, "FAQ"): agents read the entries, admins write them, list the sync's runs and
 * resolve its conflicts.
 */

export interface FaqServiceDeps {
  db: Database;
  clock: Clock;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Admin-only routes refuse everyone else. */
export function requireAdmin(scope: StaffScope): void {
  if (!scope.admin) throw messagingErrors.create('messaging.staff.admin_required');
}

const PositionSchema = z.tuple([z.string().min(1).max(64), z.uuid()]);

function position(kind: string, cursor: string | undefined): [string, string] | undefined {
  if (cursor === undefined) return undefined;
  const decoded = decodeCursor(kind, cursor, PositionSchema);
  if (decoded === null) throw messagingErrors.create('messaging.cursor.invalid');
  return decoded;
}

function page<T extends { id: string; position: string }>(
  kind: string,
  rows: T[],
  limit: number,
): Page<Omit<T, 'position'>> {
  const last = rows.at(-1);
  return {
    items: rows.map(({ position: _position, ...item }) => item),
    nextCursor: rows.length === limit && last ? encodeCursor(kind, [last.position, last.id]) : null,
  };
}

export async function listFaq(deps: FaqServiceDeps, query: FaqListQuery): Promise<Page<FaqEntry>> {
  // The filters are part of the cursor's kind: a cursor of another filter is refused, not misread.
  const kind = `faq:${query.archived}:${query.language ?? ''}:${query.published ?? ''}`;
  const rows = await faqStore.list(deps.db, {
    limit: query.limit,
    archived: query.archived === 'true',
    language: query.language,
    published: query.published === undefined ? undefined : query.published === 'true',
    after: position(kind, query.cursor),
  });
  return page(kind, rows, query.limit);
}

export async function readFaq(deps: FaqServiceDeps, id: string): Promise<FaqEntry> {
  const entry = await faqStore.find(deps.db, id);
  if (!entry) throw messagingErrors.create('messaging.faq.not_found');
  return entry;
}

export function createFaq(deps: FaqServiceDeps, input: FaqCreate): Promise<FaqEntry> {
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const entry = await faqStore.create(tx, input, now);
    await mirrorFaqIntoKb(tx, now);
    return entry;
  });
}

export function updateFaq(deps: FaqServiceDeps, id: string, patch: FaqUpdate): Promise<FaqEntry> {
  return deps.db.transaction(async (tx) => {
    const entry = await faqStore.find(tx, id, true);
    if (!entry) throw messagingErrors.create('messaging.faq.not_found');
    if (entry.archived) throw messagingErrors.create('messaging.faq.archived');
    const now = deps.clock.now();
    const updated = await faqStore.update(tx, id, patch, now);
    await mirrorFaqIntoKb(tx, now);
    return updated;
  });
}

/** Archives the entry (idempotent); it stops answering at once and stays readable with `archived=true`. */
export async function archiveFaq(deps: FaqServiceDeps, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const entry = await faqStore.find(tx, id, true);
    if (!entry) throw messagingErrors.create('messaging.faq.not_found');
    const now = deps.clock.now();
    await faqStore.archive(tx, id, now);
    await mirrorFaqIntoKb(tx, now);
  });
}

export async function listConflicts(
  deps: FaqServiceDeps,
  query: FaqConflictListQuery,
): Promise<Page<FaqConflict>> {
  const kind = `faq-conflicts:${query.state}`;
  const rows = await faqSyncStore.listConflicts(
    deps.db,
    query.state === 'open',
    query.limit,
    position(kind, query.cursor),
  );
  return page(kind, rows, query.limit);
}

/**
 * Resolves a conflict: `upstream` takes the upstream content (and revives an archived entry), after which the
 * sync updates the entry again; `local` keeps the admin's text and marks this upstream version as seen, so
 * only a later upstream change raises a new conflict.
 */
export function resolveConflict(
  deps: FaqServiceDeps,
  scope: StaffScope,
  id: string,
  keep: 'local' | 'upstream',
): Promise<FaqConflict> {
  return deps.db.transaction(async (tx) => {
    const conflict = await faqSyncStore.findConflict(tx, id, true);
    if (!conflict) throw messagingErrors.create('messaging.faq.conflict_not_found');
    if (conflict.resolvedAt !== null) throw messagingErrors.create('messaging.faq.conflict_resolved');
    const now = deps.clock.now();
    const hash = upstreamHash(conflict.upstream);
    if (keep === 'upstream') await faqStore.applyUpstream(tx, conflict.entryId, conflict.upstream, hash, now);
    else await faqStore.keepLocal(tx, conflict.entryId, hash, conflict.upstream.updatedAt);
    await faqSyncStore.markResolved(tx, id, keep, scope.userId, now);
    await mirrorFaqIntoKb(tx, now);
    return (await faqSyncStore.findConflict(tx, id)) as FaqConflict;
  });
}

export async function listRuns(deps: FaqServiceDeps, query: FaqRunListQuery): Promise<Page<FaqSyncRun>> {
  const rows = await faqSyncStore.listRuns(deps.db, query.limit, position('faq-runs', query.cursor));
  return page('faq-runs', rows, query.limit);
}
