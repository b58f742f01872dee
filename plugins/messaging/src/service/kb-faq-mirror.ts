import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { type FaqMirrorRow, kbDocumentStore } from '../store/kb-document-store.ts';
import { changeKbDocument, insertKbDocument } from './kb-documents.ts';

/** Who the documents mirrored from the FAQ name as their author. */
export const FAQ_MIRROR_AUTHOR = 'faq';
const TITLE_MAX = 200;

/**
 * Brings the knowledge base's FAQ documents up to date with the FAQ (README, "Knowledge base", "From the FAQ"),
 * inside the caller's transaction: every FAQ write calls it before committing, so a committed entry and its
 * document always agree. A live published entry gets a published document (created the first time); an
 * unpublished or archived one leaves its document a draft, so it is no longer searched but keeps its history.
 * Answers how many documents it wrote.
 */
export async function mirrorFaqIntoKb(tx: Queryable, now: Date): Promise<number> {
  let written = 0;
  for (const row of await kbDocumentStore.faqMirrorsDue(tx)) {
    const documentId = await kbDocumentStore.lockFaqEntry(tx, row.entry_id);
    if (documentId === null) {
      if (!row.live) continue;
      const created = await insertKbDocument(
        tx,
        { ...faqDocument(row), source: 'faq' },
        FAQ_MIRROR_AUTHOR,
        now,
      );
      await kbDocumentStore.linkFaq(tx, created.id, row.entry_id, row.entry_updated_at);
    } else {
      await changeKbDocument(tx, documentId, faqDocument(row), FAQ_MIRROR_AUTHOR, now);
      await kbDocumentStore.linkFaq(tx, documentId, row.entry_id, row.entry_updated_at);
    }
    written++;
  }
  return written;
}

/** The document of an entry: titled by its first question, the answer, then the other ways it is asked. */
function faqDocument(row: FaqMirrorRow) {
  const [first = '', ...others] = row.questions;
  const alsoAsked = others.length === 0 ? '' : `\n\n${others.map((question) => `- ${question}`).join('\n')}`;
  return {
    title: first.slice(0, TITLE_MAX),
    body: `${row.answer}${alsoAsked}`,
    language: row.language,
    tags: ['faq'],
    status: row.live ? ('published' as const) : ('draft' as const),
  };
}
