import { storableText } from '../../../../gateway/src/plugin-api.ts';
import {
  KB_BODY_MAX,
  KB_SOURCES,
  KB_TITLE_MAX,
  type KbImport,
  type KbImportResult,
  type KbSourcesView,
} from '../domain/kb-schemas.ts';
import type { StaffScope } from '../domain/staff-scope.ts';
import { kbChunkStore } from '../store/kb-chunk-store.ts';
import { kbDocumentStore, kbImportStore, type KbImportItemRow } from '../store/kb-document-store.ts';
import { insertKbDocument, type KbDeps, requireAdmin } from './kb-documents.ts';

/**
 * Imports Markdown or plain-text files, one document each (README, "Knowledge base", "Sources"): the title is
 * the first heading's text, else the file name without its extension. An item that cannot become a document
 * (empty, no text) is recorded with its error; the others are imported. All in one transaction.
 */
export async function importKbFiles(
  deps: KbDeps,
  scope: StaffScope,
  input: KbImport,
): Promise<KbImportResult> {
  requireAdmin(scope);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const importId = await kbImportStore.begin(tx, scope.userId, now, input.items.length);
    const items: KbImportItemRow[] = [];
    for (const item of input.items) {
      const filename = storableText(item.filename);
      const body = storableText(item.content).trim();
      if (body.length === 0 || body.length > KB_BODY_MAX) {
        items.push({ filename, documentId: null, error: 'the file has no text' });
        continue;
      }
      const doc = await insertKbDocument(
        tx,
        {
          title: importTitle(filename, body),
          body,
          language: item.language,
          tags: [],
          status: input.status,
          source: 'import',
          importId,
        },
        scope.userId,
        now,
      );
      items.push({ filename, documentId: doc.id, error: null });
    }
    await kbImportStore.finish(tx, importId, items);
    return {
      id: importId,
      createdAt: now.toISOString(),
      imported: items.filter((i) => i.error === null).length,
      errors: items.filter((i) => i.error !== null).length,
      items,
    };
  });
}

/** The first ATX heading's text, else the file name without its extension; at most KB_TITLE_MAX. */
export function importTitle(filename: string, body: string): string {
  for (const raw of body.split('\n', 200)) {
    const line = raw.trim();
    if (!line.startsWith('#')) continue;
    let level = 0;
    while (line.charAt(level) === '#') level++;
    const text = line.slice(level).trim();
    if (level <= 6 && line.charAt(level) === ' ' && text.length > 0) return text.slice(0, KB_TITLE_MAX);
  }
  const dot = filename.lastIndexOf('.');
  const base = (dot > 0 ? filename.slice(0, dot) : filename).trim();
  return (base.length > 0 ? base : filename).slice(0, KB_TITLE_MAX);
}

/** Where documents come from: counts per source and status, the last import and its errors. */
export async function kbSources(deps: KbDeps): Promise<KbSourcesView> {
  const [counts, latest, version] = await Promise.all([
    kbDocumentStore.counts(deps.db),
    kbImportStore.latest(deps.db),
    kbChunkStore.version(deps.db),
  ]);
  return {
    kbVersion: version,
    sources: KB_SOURCES.map((source) => {
      const count = (status: string) =>
        counts.find((c) => c.source === source && c.status === status)?.count ?? 0;
      const imported = source === 'import' ? latest : null;
      return {
        source,
        documents: { draft: count('draft'), published: count('published'), archived: count('archived') },
        lastImportAt: imported?.created_at.toISOString() ?? null,
        lastImportErrors: (imported?.items ?? []).flatMap((i) =>
          i.error === null ? [] : [{ filename: i.filename, error: i.error }],
        ),
      };
    }),
  };
}
