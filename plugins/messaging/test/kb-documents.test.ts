/**
 * Knowledge-base documents (README, "Knowledge base"), through the booted gateway in enforce mode with signed
 * requests: create, read, list with filters and pages, edit with versions and If-Match, publish and unpublish
 * (what retrieval searches and the KB version follow), archive; who may write; the sources and the import.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
}, 60_000);
afterAll(() => stop?.());

const admin = () => staffClient(gateway, ADMIN);
const a1 = () => staffClient(gateway, agent('a1'));

interface Doc {
  id: string;
  title: string;
  body: string;
  status: string;
  version: number;
  tags: string[];
  source: string;
  language: string;
  publishedAt: string | null;
}

async function create(json: Record<string, unknown>): Promise<{ doc: Doc; etag: string }> {
  const res = await admin().post('/api/v1/kb/documents', { json });
  expect(res.status).toBe(201);
  return { doc: (await res.json()) as Doc, etag: res.headers.get('etag') as string };
}

async function chunkCount(documentId: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messaging_kb_chunks WHERE document_id = $1`,
    [documentId],
  );
  return rows[0]?.n ?? 0;
}

async function kbVersion(): Promise<number> {
  const { rows } = await db.pool.query<{ version: string }>(`SELECT version FROM messaging_kb_state`);
  return Number(rows[0]?.version);
}

const BODY =
  '# Asrama\n\nKampus menyediakan asrama untuk mahasiswa baru.\n\n## Biaya asrama\n\nBiaya asrama Rp 900.000 per bulan.';

describe('documents', () => {
  it('creates a draft, reads it with its ETag, and searches nothing until it is published', async () => {
    const before = await kbVersion();
    const { doc, etag } = await create({ title: 'Asrama', body: BODY, language: 'id', tags: ['housing'] });
    expect(doc).toMatchObject({
      title: 'Asrama',
      status: 'draft',
      version: 1,
      source: 'manual',
      tags: ['housing'],
    });
    expect(etag).toBe(`"${doc.id}.1"`);
    expect(await chunkCount(doc.id)).toBe(0);
    expect(await kbVersion()).toBe(before);

    const read = await a1().get(`/api/v1/kb/documents/${doc.id}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    expect(((await read.json()) as Doc).body).toBe(BODY);
  });

  it('publishes and unpublishes: chunks appear and go, the KB version moves, edits keep versions', async () => {
    const { doc, etag } = await create({ title: 'Asrama', body: BODY, language: 'id' });
    const v0 = await kbVersion();

    const published = await admin().patch(`/api/v1/kb/documents/${doc.id}`, {
      json: { status: 'published' },
      headers: { 'if-match': etag },
    });
    expect(published.status).toBe(200);
    const afterPublish = (await published.json()) as Doc;
    expect(afterPublish).toMatchObject({ status: 'published', version: 2 });
    expect(afterPublish.publishedAt).not.toBeNull();
    expect(published.headers.get('etag')).toBe(`"${doc.id}.2"`);
    expect(await chunkCount(doc.id)).toBe(2);
    expect(await kbVersion()).toBe(v0 + 1);

    // A stale ETag is refused and changes nothing.
    const stale = await admin().patch(`/api/v1/kb/documents/${doc.id}`, {
      json: { title: 'Other' },
      headers: { 'if-match': etag },
    });
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as { code: string }).code).toBe('messaging.kb.precondition_failed');

    const edited = await admin().patch(`/api/v1/kb/documents/${doc.id}`, {
      json: { title: 'Asrama kampus' },
    });
    expect(edited.status).toBe(200);
    expect(await kbVersion()).toBe(v0 + 2);

    const unpublished = await admin().patch(`/api/v1/kb/documents/${doc.id}`, { json: { status: 'draft' } });
    expect(((await unpublished.json()) as Doc).status).toBe('draft');
    expect(await chunkCount(doc.id)).toBe(0);
    expect(await kbVersion()).toBe(v0 + 3);

    const versions = await a1().get(`/api/v1/kb/documents/${doc.id}/versions`);
    const items = (
      (await versions.json()) as { items: Array<{ version: number; title: string; status: string }> }
    ).items;
    expect(items.map((v) => [v.version, v.title, v.status])).toEqual([
      [3, 'Asrama kampus', 'published'],
      [2, 'Asrama', 'published'],
      [1, 'Asrama', 'draft'],
    ]);
  });

  it('archives on delete: no longer searched, still readable, no longer editable', async () => {
    const { doc } = await create({
      title: 'Wisuda',
      body: 'Wisuda diadakan setiap bulan Oktober.',
      language: 'id',
      status: 'published',
    });
    expect(await chunkCount(doc.id)).toBe(1);
    expect((await admin().delete(`/api/v1/kb/documents/${doc.id}`)).status).toBe(204);
    expect(await chunkCount(doc.id)).toBe(0);
    const read = await admin().get(`/api/v1/kb/documents/${doc.id}`);
    expect(((await read.json()) as Doc).status).toBe('archived');
    const edit = await admin().patch(`/api/v1/kb/documents/${doc.id}`, { json: { status: 'published' } });
    expect(edit.status).toBe(409);
    expect((await admin().delete(`/api/v1/kb/documents/${doc.id}`)).status).toBe(204);
  });

  it('lets agents read but not write', async () => {
    const { doc } = await create({ title: 'Beasiswa', body: 'Beasiswa prestasi tersedia.', language: 'id' });
    for (const res of [
      await a1().post('/api/v1/kb/documents', { json: { title: 'x', body: 'y', language: 'en' } }),
      await a1().patch(`/api/v1/kb/documents/${doc.id}`, { json: { status: 'published' } }),
      await a1().delete(`/api/v1/kb/documents/${doc.id}`),
      await a1().post('/api/v1/kb/import', {
        json: { items: [{ filename: 'a.md', content: '# A\n\ntext', language: 'en' }] },
      }),
    ]) {
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe('messaging.staff.admin_required');
    }
    expect(((await (await admin().get(`/api/v1/kb/documents/${doc.id}`)).json()) as Doc).status).toBe(
      'draft',
    );
    expect((await a1().get('/api/v1/kb/documents')).status).toBe(200);
  });

  it('refuses bad input with 4xx problems and writes nothing', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/kb/documents', { title: '', body: 'x', language: 'id' }],
      ['POST', '/api/v1/kb/documents', { title: 'x', body: '   ', language: 'id' }],
      ['POST', '/api/v1/kb/documents', { title: 'x', body: 'y', language: 'fr' }],
      ['POST', '/api/v1/kb/documents', { title: 'x'.repeat(201), body: 'y', language: 'id' }],
      ['POST', '/api/v1/kb/documents', { title: 'x', body: 'y', language: 'id', tags: ['Bad Tag'] }],
      ['POST', '/api/v1/kb/documents', { title: 'x', body: 'y', language: 'id', status: 'archived' }],
      ['POST', '/api/v1/kb/documents', { title: 'x', body: 'y', language: 'id', extra: 1 }],
      ['PATCH', '/api/v1/kb/documents/not-a-uuid', { title: 'x' }],
      ['PATCH', '/api/v1/kb/documents/00000000-0000-4000-8000-000000000000', {}],
      ['POST', '/api/v1/kb/import', { items: [] }],
      ['POST', '/api/v1/kb/import', { items: [{ filename: '../etc/passwd', content: 'x', language: 'id' }] }],
    ];
    const { rows: before } = await db.pool.query(`SELECT count(*)::int AS n FROM messaging_kb_documents`);
    for (const [method, path, json] of cases) {
      const res = await admin()[method === 'POST' ? 'post' : 'patch'](path, { json });
      expect(res.status, `${method} ${path} ${JSON.stringify(json)}`).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    const missing = await admin().get('/api/v1/kb/documents/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('messaging.kb.document_not_found');
    const badCursor = await admin().get('/api/v1/kb/documents?cursor=abc');
    expect(badCursor.status).toBe(400);
    const { rows: after } = await db.pool.query(`SELECT count(*)::int AS n FROM messaging_kb_documents`);
    expect(after).toEqual(before);
  });

  it('lists with filters, in pages', async () => {
    for (let i = 0; i < 5; i++)
      await create({
        title: `Paged ${i}`,
        body: `Body ${i}`,
        language: 'en',
        tags: ['paged'],
        status: 'published',
      });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/api/v1/kb/documents?tag=paged&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await (await a1().get(query)).json()) as { items: Doc[]; nextCursor: string | null };
      seen.push(...page.items.map((d) => d.title));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(['Paged 4', 'Paged 3', 'Paged 2', 'Paged 1', 'Paged 0']);
    const drafts = (await (await a1().get('/api/v1/kb/documents?tag=paged&status=draft')).json()) as {
      items: Doc[];
    };
    expect(drafts.items).toEqual([]);
    const en = (await (
      await a1().get('/api/v1/kb/documents?language=id&source=manual&limit=100')
    ).json()) as {
      items: Doc[];
    };
    expect(en.items.every((d) => d.language === 'id' && d.source === 'manual')).toBe(true);
  });
});

describe('sources and import', () => {
  it('imports files one document each, records errors per item, and counts documents per source', async () => {
    const res = await admin().post('/api/v1/kb/import', {
      json: {
        status: 'published',
        items: [
          {
            filename: 'parking.md',
            content: 'Intro line\n\n# Parking on campus\n\nStudents park in lot B.',
            language: 'en',
          },
          { filename: 'library-hours.txt', content: 'The library opens at 8 am.', language: 'en' },
          { filename: 'empty.md', content: '  \n ', language: 'en' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const result = (await res.json()) as {
      imported: number;
      errors: number;
      items: Array<{ filename: string; documentId: string | null; error: string | null }>;
    };
    expect(result).toMatchObject({ imported: 2, errors: 1 });
    const titles = await Promise.all(
      result.items
        .filter((i) => i.documentId !== null)
        .map(async (i) => (await (await admin().get(`/api/v1/kb/documents/${i.documentId}`)).json()) as Doc),
    );
    expect(titles.map((d) => [d.title, d.source, d.status])).toEqual([
      ['Parking on campus', 'import', 'published'],
      ['library-hours', 'import', 'published'],
    ]);

    const sources = (await (await a1().get('/api/v1/kb/sources')).json()) as {
      kbVersion: number;
      sources: Array<{
        source: string;
        documents: { published: number };
        lastImportAt: string | null;
        lastImportErrors: Array<{ filename: string }>;
      }>;
    };
    const imported = sources.sources.find((s) => s.source === 'import');
    expect(imported?.documents.published).toBe(2);
    expect(imported?.lastImportAt).not.toBeNull();
    expect(imported?.lastImportErrors.map((e) => e.filename)).toEqual(['empty.md']);
    expect(sources.kbVersion).toBeGreaterThan(0);
  });
});
