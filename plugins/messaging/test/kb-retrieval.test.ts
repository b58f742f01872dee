/**
 * Retrieval over published chunks (README, "Knowledge base", "Retrieval") on a small fixture in English and
 * Indonesian: the right document ranks first, a misspelt short query still hits through the nearest known word,
 * the language option limits the chunks, drafts are never found, and the query uses the indexes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../gateway/src/plugin-api.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { pluginDatabase } from '../../../test/support/plugin-database.ts';
import { createKbDocument } from '../src/service/kb-documents.ts';
import { createKbRetrieval, KB_ANSWER_THRESHOLD } from '../src/service/kb-retrieval.ts';
import { kbVersion } from '../src/store/kb-chunk-store.ts';

let test: TestDatabase;
let db: Database;
const admin = { userId: 'admin-1', admin: true, clusters: [] };
const clock = { now: () => new Date(), nowMs: () => Date.now() };

const FIXTURE: Array<[string, 'id' | 'en', string, 'draft' | 'published']> = [
  [
    'Dormitory',
    'en',
    '# Dormitory\n\nFirst-year students can live in the campus dormitory. Rooms are shared by two students.',
    'published',
  ],
  [
    'Tuition fees',
    'en',
    '# Tuition\n\nTuition is paid each semester. Fees differ per study programme.',
    'published',
  ],
  [
    'Scholarships',
    'en',
    '# Scholarships\n\nMerit scholarships cover half of the tuition for students with top grades.',
    'published',
  ],
  [
    'Asrama',
    'id',
    '# Asrama\n\nMahasiswa tahun pertama dapat tinggal di asrama kampus. Satu kamar untuk dua mahasiswa.',
    'published',
  ],
  [
    'Wisuda',
    'id',
    '# Wisuda\n\nUpacara wisuda diadakan setiap bulan Oktober di auditorium utama.',
    'published',
  ],
  [
    'Beasiswa',
    'id',
    '# Beasiswa\n\nBeasiswa prestasi menanggung separuh uang kuliah bagi mahasiswa berprestasi.',
    'published',
  ],
  ['Parkir (draft)', 'id', '# Parkir\n\nMahasiswa parkir di gedung parkir timur.', 'draft'],
];
const ids = new Map<string, string>();

beforeAll(async () => {
  test = await createTestDatabase();
  db = pluginDatabase(test.url);
  for (const [title, language, body, status] of FIXTURE) {
    const { view } = await createKbDocument({ db, clock }, admin, {
      title,
      body,
      language,
      status,
      tags: [],
      source: 'manual',
    });
    ids.set(title, view.id);
  }
}, 60_000);
afterAll(async () => {
  await db?.pool.end();
  await test?.drop();
});

const retrieval = () => createKbRetrieval({ db });
const top = async (query: string, language?: 'id' | 'en') =>
  (await retrieval().search(query, language ? { language } : {}))[0];

describe('retrieval', () => {
  it('ranks the document that answers first, above the threshold, in both languages', async () => {
    const cases: Array<[string, string]> = [
      ['Can I live in the dormitory?', 'Dormitory'],
      ['how much is the tuition per semester', 'Tuition fees'],
      ['Is there a scholarship for students with good grades?', 'Scholarships'],
      ['apakah ada asrama untuk mahasiswa tahun pertama?', 'Asrama'],
      ['kapan upacara wisuda diadakan?', 'Wisuda'],
      ['info beasiswa prestasi dong', 'Beasiswa'],
    ];
    for (const [query, title] of cases) {
      const best = await top(query);
      expect(best?.documentId, query).toBe(ids.get(title));
      expect(best?.score, query).toBeGreaterThanOrEqual(KB_ANSWER_THRESHOLD);
      expect(best?.score, query).toBeLessThanOrEqual(1);
    }
  });

  it('finds a misspelt short query through the nearest known word (trigram similarity)', async () => {
    const best = await top('wisudah');
    expect(best?.documentId).toBe(ids.get('Wisuda'));
    expect(best?.score).toBeGreaterThanOrEqual(KB_ANSWER_THRESHOLD);
  });

  it('scores an unrelated question below the threshold', async () => {
    const best = await top('what time does the cafeteria close on sunday');
    expect(best === undefined || best.score < KB_ANSWER_THRESHOLD).toBe(true);
  });

  it('limits to one language when asked, and never finds drafts', async () => {
    expect((await top('asrama mahasiswa', 'en'))?.language ?? 'en').toBe('en');
    const hits = await retrieval().search('parkir gedung timur', { limit: 20 });
    expect(hits.map((h) => h.documentId)).not.toContain(ids.get('Parkir (draft)'));
    expect(await retrieval().search('!!! ???')).toEqual([]);
  });

  it('exports the KB version', async () => {
    expect(await kbVersion(db)).toBe(FIXTURE.filter((f) => f[3] === 'published').length);
  });
});
