/**
 * FAQ entries feed the knowledge base (README, "Knowledge base", "From the FAQ"), through the booted gateway on
 * PostgreSQL: a published entry gets a published `faq` document that retrieval finds, an edit becomes a new
 * version of it, unpublishing or archiving the entry leaves it a searchable-no-more draft, entries pulled from the
 * knowledge service get documents in the sync's transaction, and the document itself cannot be edited in the KB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startKnowledgeStub, type KnowledgeStub } from '../../../test/support/knowledge-service.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, staffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let knowledge: KnowledgeStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  knowledge = await startKnowledgeStub();
  ({ db, gateway, stop } = await startStaffApiHarness({
    env: { FAQ_SYNC_URL: knowledge.url, FAQ_SYNC_TOKEN: 'faq-token' },
  }));
}, 60_000);
afterAll(async () => {
  await stop?.();
  await knowledge?.close();
});

const admin = () => staffClient(gateway, ADMIN);

interface Document {
  id: string;
  title: string;
  body: string;
  source: string;
  status: string;
  version: number;
}

async function faqDocuments(): Promise<Document[]> {
  const res = await admin().get('/api/v1/kb/documents?source=faq&limit=100');
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Document[] }).items;
}

/** The documents retrieval finds for a question, best first (the bot's own search, read from the database). */
async function searched(question: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ document_id: string }>(
    `SELECT DISTINCT c.document_id FROM messaging_kb_chunks c
      WHERE c.tsv @@ to_tsquery(CASE WHEN c.language = 'en' THEN 'english' ELSE 'messaging_kb_id' END::regconfig, $1)`,
    [question],
  );
  return rows.map((row) => row.document_id);
}

describe('FAQ entries in the knowledge base', () => {
  it('follow their entry: published, edited, unpublished, archived', async () => {
    const created = await admin().post('/api/v1/faq', {
      json: {
        questions: ['Apakah ada kolam renang?', 'kolam renang buka jam berapa'],
        answer: 'Kolam renang kampus buka setiap hari pukul 06.00-18.00.',
        language: 'id',
        published: true,
      },
    });
    expect(created.status).toBe(201);
    const entry = (await created.json()) as { id: string };
    const [document] = await faqDocuments();
    expect(document).toMatchObject({
      title: 'Apakah ada kolam renang?',
      source: 'faq',
      status: 'published',
      version: 1,
    });
    expect(document?.body).toContain('pukul 06.00-18.00');
    expect(document?.body).toContain('- kolam renang buka jam berapa');
    expect(await searched('renang')).toEqual([document?.id]);

    const edited = await admin().patch(`/api/v1/faq/${entry.id}`, {
      json: { answer: 'Kolam renang kampus buka pukul 07.00-17.00.' },
    });
    expect(edited.status).toBe(200);
    const [after] = await faqDocuments();
    expect(after).toMatchObject({ id: document?.id, version: 2, status: 'published' });
    expect(after?.body).toContain('07.00-17.00');

    await admin().patch(`/api/v1/faq/${entry.id}`, { json: { published: false } });
    expect((await faqDocuments())[0]).toMatchObject({ id: document?.id, status: 'draft' });
    expect(await searched('renang')).toEqual([]);

    await admin().patch(`/api/v1/faq/${entry.id}`, { json: { published: true } });
    expect(await searched('renang')).toEqual([document?.id]);
    expect((await admin().delete(`/api/v1/faq/${entry.id}`)).status).toBe(204);
    expect((await faqDocuments())[0]).toMatchObject({ id: document?.id, status: 'draft' });
    expect(await searched('renang')).toEqual([]);
  });

  it('are not edited or deleted in the knowledge base, only through their entry', async () => {
    await admin().post('/api/v1/faq', {
      json: {
        questions: ['Is there a gym?'],
        answer: 'Yes, in building C.',
        language: 'en',
        published: true,
      },
    });
    const document = (await faqDocuments()).find((item) => item.title === 'Is there a gym?');
    for (const res of [
      await admin().patch(`/api/v1/kb/documents/${document?.id}`, { json: { title: 'Gym' } }),
      await admin().delete(`/api/v1/kb/documents/${document?.id}`),
    ]) {
      expect(res.status).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe('messaging.kb.document_from_faq');
    }
  });

  it('come with the entries a sync pulls, and go with the ones it archives', async () => {
    knowledge.setItems([
      {
        id: 'ext-parking',
        questions: ['Where can I park?'],
        answer: 'Parking is behind the library.',
        language: 'en',
        updatedAt: '2026-11-01T00:00:00Z',
      },
    ]);
    expect((await admin().post('/api/v1/faq/sync')).status).toBeLessThan(300);
    const pulled = (await faqDocuments()).find((item) => item.title === 'Where can I park?');
    expect(pulled).toMatchObject({ status: 'published', source: 'faq' });

    knowledge.setItems([]);
    expect((await admin().post('/api/v1/faq/sync')).status).toBeLessThan(300);
    expect((await faqDocuments()).find((item) => item.id === pulled?.id)?.status).toBe('draft');
  });
});
