import type { Clock, Database, Queryable } from '../../../../gateway/src/plugin-api.ts';
import { decodeCursor, encodeCursor } from '../domain/cursor.ts';
import { chunkDocument } from '../domain/kb-chunking.ts';
import {
  type KbDocumentChanges,
  type KbDocumentCreate,
  type KbDocumentListQuery,
  KbDocumentPositionSchema,
  type KbDocumentVersionView,
  type KbDocumentView,
} from '../domain/kb-schemas.ts';
import { leadEtag, type LeadPrecondition } from '../domain/lead-etag.ts';
import type { StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { kbChunkStore } from '../store/kb-chunk-store.ts';
import { kbDocumentStore, type KbDocumentRow, type KbDocumentWrite } from '../store/kb-document-store.ts';

/** Tags the document list's cursors. */
const CURSOR_KIND = 'kb-documents';

export interface KbDeps {
  db: Database;
  clock: Clock;
}

/** Knowledge-base writes are for admins (README, "Knowledge base"); agents may read. */
export function requireAdmin(scope: StaffScope): void {
  if (!scope.admin) throw messagingErrors.create('messaging.staff.admin_required');
}

/** A document and its ETag (`"<id>.<version>"`, like a lead's). */
export interface KbDocumentWithTag {
  view: KbDocumentView;
  etag: string;
}

/** Creates a document; a published one is chunked (searchable) in the same transaction. */
export async function createKbDocument(
  deps: KbDeps,
  scope: StaffScope,
  input: KbDocumentCreate,
): Promise<KbDocumentWithTag> {
  requireAdmin(scope);
  const row = await deps.db.transaction((tx) =>
    insertKbDocument(tx, { ...input, source: input.source }, scope.userId, deps.clock.now()),
  );
  return withTag(row);
}

/** Inserts a document in the caller's transaction, publishing it when its status says so. */
export async function insertKbDocument(
  tx: Queryable,
  doc: KbDocumentWrite & { source: KbDocumentRow['source']; importId?: string },
  by: string,
  now: Date,
): Promise<KbDocumentRow> {
  const row = await kbDocumentStore.insert(tx, doc, by, now);
  if (row.status === 'published') await publishChunks(tx, row);
  return row;
}

export async function readKbDocument(deps: KbDeps, id: string): Promise<KbDocumentWithTag> {
  const row = await kbDocumentStore.find(deps.db, id);
  if (!row) throw messagingErrors.create('messaging.kb.document_not_found');
  return withTag(row);
}

export async function listKbDocumentVersions(deps: KbDeps, id: string): Promise<KbDocumentVersionView[]> {
  if (!(await kbDocumentStore.find(deps.db, id)))
    throw messagingErrors.create('messaging.kb.document_not_found');
  return (await kbDocumentStore.versions(deps.db, id)).map((row) => ({
    version: row.version,
    title: row.title,
    body: row.body,
    language: row.language,
    tags: row.tags,
    status: row.status,
    savedBy: row.saved_by,
    savedAt: row.saved_at.toISOString(),
  }));
}

/**
 * Changes a document (the state before is kept as a version). `If-Match` is optional here: when sent it must
 * name the current version. What is searched follows the new state in the same transaction.
 */
export async function updateKbDocument(
  deps: KbDeps,
  scope: StaffScope,
  id: string,
  changes: KbDocumentChanges,
  precondition: LeadPrecondition,
): Promise<KbDocumentWithTag> {
  requireAdmin(scope);
  const row = await deps.db.transaction(async (tx) => {
    const current = await lockedDocument(tx, id, precondition);
    if (current.status === 'archived') throw messagingErrors.create('messaging.kb.document_archived');
    await refuseFaqDocument(tx, id);
    const next: KbDocumentWrite = {
      title: changes.title ?? current.title,
      body: changes.body ?? current.body,
      language: changes.language ?? current.language,
      tags: changes.tags ?? current.tags,
      status: changes.status ?? current.status,
    };
    return changeState(tx, current, next, scope.userId, deps.clock.now());
  });
  return withTag(row);
}

/** Archives a document (the soft delete): it is no longer searched; it stays readable with its versions. */
export async function archiveKbDocument(
  deps: KbDeps,
  scope: StaffScope,
  id: string,
  precondition: LeadPrecondition,
): Promise<void> {
  requireAdmin(scope);
  await deps.db.transaction(async (tx) => {
    const current = await lockedDocument(tx, id, precondition);
    if (current.status === 'archived') return;
    await refuseFaqDocument(tx, id);
    await changeState(tx, current, { ...current, status: 'archived' }, scope.userId, deps.clock.now());
  });
}

/**
 * Gives a document the content `next` in the caller's transaction (the FAQ mirror: src/service/kb-faq-mirror.ts),
 * keeping the state before as a version; the searched chunks follow.
 */
export async function changeKbDocument(
  tx: Queryable,
  id: string,
  next: KbDocumentWrite,
  by: string,
  now: Date,
): Promise<KbDocumentRow> {
  const current = await kbDocumentStore.find(tx, id, true);
  if (!current) throw new Error(`knowledge-base document ${id} vanished while locked`);
  return changeState(tx, current, next, by, now);
}

/** A document mirrored from the FAQ changes with its entry only (README, "From the FAQ"). */
async function refuseFaqDocument(tx: Queryable, id: string): Promise<void> {
  if ((await kbDocumentStore.faqEntryOf(tx, id)) !== null)
    throw messagingErrors.create('messaging.kb.document_from_faq');
}

/** One page of documents, the latest change first. */
export async function listKbDocuments(
  deps: KbDeps,
  query: KbDocumentListQuery,
): Promise<{ items: KbDocumentView[]; nextCursor: string | null }> {
  let after: readonly [number, string] | undefined;
  if (query.cursor !== undefined) {
    const position = decodeCursor(CURSOR_KIND, query.cursor, KbDocumentPositionSchema);
    if (!position) throw messagingErrors.create('messaging.cursor.invalid');
    after = position;
  }
  const rows = await kbDocumentStore.page(deps.db, {
    limit: query.limit + 1,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.language === undefined ? {} : { language: query.language }),
    ...(query.tag === undefined ? {} : { tag: query.tag }),
    ...(query.source === undefined ? {} : { source: query.source }),
    ...(after === undefined ? {} : { after }),
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  const nextCursor =
    rows.length > query.limit && last ? encodeCursor(CURSOR_KIND, [Number(last.position), last.id]) : null;
  return { items: page.map(documentView), nextCursor };
}

async function lockedDocument(
  tx: Queryable,
  id: string,
  precondition: LeadPrecondition,
): Promise<KbDocumentRow> {
  const current = await kbDocumentStore.find(tx, id, true);
  if (!current) throw messagingErrors.create('messaging.kb.document_not_found');
  if (precondition.kind === 'versions' && !precondition.versions.includes(current.version))
    throw messagingErrors.create('messaging.kb.precondition_failed');
  return current;
}

/** Writes the next state and makes the searched chunks follow it; the KB version moves when they change. */
async function changeState(
  tx: Queryable,
  current: KbDocumentRow,
  next: KbDocumentWrite,
  by: string,
  now: Date,
): Promise<KbDocumentRow> {
  const row = await kbDocumentStore.update(tx, current, next, by, now);
  if (row.status === 'published') await publishChunks(tx, row);
  else if (current.status === 'published') await unpublishChunks(tx, row);
  return row;
}

async function publishChunks(tx: Queryable, row: KbDocumentRow): Promise<void> {
  await kbChunkStore.replace(tx, row, chunkDocument(row.title, row.body));
  await kbChunkStore.bumpVersion(tx);
}

async function unpublishChunks(tx: Queryable, row: KbDocumentRow): Promise<void> {
  await kbChunkStore.replace(tx, row, []);
  await kbChunkStore.bumpVersion(tx);
}

function withTag(row: KbDocumentRow): KbDocumentWithTag {
  return { view: documentView(row), etag: leadEtag(row.id, row.version) };
}

export function documentView(row: KbDocumentRow): KbDocumentView {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    language: row.language,
    tags: row.tags,
    source: row.source,
    status: row.status,
    version: row.version,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    publishedAt: row.published_at?.toISOString() ?? null,
  };
}
