/**
 * `npm run bench:kb-retrieval`: knowledge-base retrieval (plugins/messaging/README.md, "Knowledge base") over
 * 10,000 published documents, half Indonesian and half English, generated from a fixed seed: admissions topics
 * in sentences of real words of each language mixed with a long tail of rarer words, chunked and indexed as
 * publishing does. A mix of queries (a third short: one to three words, some misspelt; the rest questions of
 * 5-12 words) runs one after another through `createKbRetrieval().search`; the baseline, interleaved in the same
 * run, is a primary-key lookup of one chunk over the same connection pool. Target: retrieval p95 ≤ 20 ms.
 * It also compares, for BENCH_EXACT_SAMPLE long questions (100), the top 3 with an exhaustive ranking of every
 * matching chunk by the same score. Output: JSON on stdout; exit status 1 when the target is missed. Options (env): BENCH_DOCUMENTS (10000),
 * BENCH_QUERIES (1000), BENCH_DATABASE_URL (else an embedded PostgreSQL of its own; one already holding the
 * documents is not seeded again).
 */
import { cpus } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Database } from '../gateway/src/plugin-api.ts';
import { insertKbDocument } from '../plugins/messaging/src/service/kb-documents.ts';
import { queryTerms } from '../plugins/messaging/src/domain/kb-query.ts';
import { createKbRetrieval } from '../plugins/messaging/src/service/kb-retrieval.ts';
import { summarise } from './lib/latency.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { hash32, mulberry32, type Random } from './lib/seed-random.ts';
import { migrate } from './lib/staff-api-postgres.ts';
import { pluginDatabase } from '../test/support/plugin-database.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 1_000);
const TARGET_P95_MS = 20;
/** Long questions compared with the exhaustive ranking (slow: every matching chunk ranked). */
const EXACT_SAMPLE = Number(process.env.BENCH_EXACT_SAMPLE ?? 100);
const SEED = 20;

const WORDS = {
  id: (
    'pendaftaran mahasiswa baru biaya kuliah semester beasiswa prestasi asrama kampus jadwal ujian seleksi ' +
    'program studi fakultas teknik ekonomi hukum kedokteran psikologi akuntansi manajemen informatika ' +
    'wisuda ijazah transkrip nilai dosen kelas kuliah malam karyawan pembayaran cicilan transfer bank ' +
    'formulir dokumen rapor akreditasi perpustakaan laboratorium parkir kantin klinik olahraga organisasi ' +
    'magang kerja praktik skripsi pembimbing cuti akademik pindahan lulusan alumni gelombang batas waktu ' +
    'syarat berkas foto kartu identitas orang tua wali surat keterangan sehat bebas narkoba tes potensi ' +
    'bahasa inggris wawancara pengumuman hasil daftar ulang seragam orientasi kegiatan asuransi'
  ).split(' '),
  en: (
    'admission application new students tuition fee semester scholarship merit dormitory campus schedule exam ' +
    'selection programme faculty engineering economics law medicine psychology accounting management computing ' +
    'graduation diploma transcript grades lecturer class evening course payment instalment bank transfer form ' +
    'documents report accreditation library laboratory parking canteen clinic sports club internship thesis ' +
    'supervisor leave transfer alumni intake deadline requirements photo identity card parents guardian letter ' +
    'health certificate english test interview announcement results registration uniform orientation insurance'
  ).split(' '),
};
const FILLER = {
  id: 'yang dan di untuk dengan pada dari ini itu dapat akan juga sudah setiap bagi oleh dalam'.split(' '),
  en: 'the and of for with on from this that can will also each by in a to is are'.split(' '),
};
const SYLLABLES = 'ka ri tu me na so la pe di gu ra ba ne ko si ma ta lu'.split(' ');

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** A rarer word: drawn from a long tail of made-up words (Zipf-like: a few common, most rare). */
function tailWord(random: Random): string {
  const rank = Math.floor(1 / (random() * 0.999 + 0.001));
  const syllables: string[] = [];
  for (let n = rank * 7919, i = 0; i < 3; i++, n = Math.floor(n / SYLLABLES.length) + i)
    syllables.push(SYLLABLES[n % SYLLABLES.length] as string);
  return `${syllables.join('')}${rank}`;
}

function sentence(random: Random, language: 'id' | 'en'): string {
  const words: string[] = [];
  const length = 8 + Math.floor(random() * 12);
  for (let i = 0; i < length; i++) {
    const r = random();
    words.push(
      r < 0.45 ? pick(random, WORDS[language]) : r < 0.8 ? pick(random, FILLER[language]) : tailWord(random),
    );
  }
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function document(index: number): { title: string; body: string; language: 'id' | 'en' } {
  const random = mulberry32(hash32(SEED, 1, index));
  const language = index % 2 === 0 ? 'id' : 'en';
  const title = `${pick(random, WORDS[language])} ${pick(random, WORDS[language])} ${index}`;
  const sections: string[] = [];
  for (let s = 0; s < 1 + Math.floor(random() * 3); s++) {
    const heading = `## ${pick(random, WORDS[language])} ${pick(random, WORDS[language])}`;
    const paragraphs: string[] = [];
    for (let p = 0; p < 1 + Math.floor(random() * 3); p++) {
      paragraphs.push(
        Array.from({ length: 2 + Math.floor(random() * 4) }, () => sentence(random, language)).join(' '),
      );
    }
    sections.push(`${heading}\n\n${paragraphs.join('\n\n')}`);
  }
  return { title, body: sections.join('\n\n'), language };
}

function query(index: number): string {
  const random = mulberry32(hash32(SEED, 2, index));
  const language = random() < 0.5 ? 'id' : 'en';
  if (index % 3 === 0) {
    const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(random, WORDS[language]));
    // Some short queries are misspelt: a letter doubled.
    if (random() < 0.3) words[0] = `${words[0]}${words[0]?.at(-1) ?? ''}`;
    return words.join(' ');
  }
  return (
    sentence(random, language)
      .split(' ')
      .slice(0, 5 + Math.floor(random() * 8))
      .join(' ') + '?'
  );
}

async function seed(db: Database): Promise<void> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM messaging_kb_documents`);
  if (rows[0]?.n === DOCUMENTS) return; // A BENCH_DATABASE_URL seeded by an earlier run.
  const now = new Date();
  for (let start = 0; start < DOCUMENTS; start += 500) {
    await db.transaction(async (tx) => {
      for (let i = start; i < Math.min(DOCUMENTS, start + 500); i++) {
        await insertKbDocument(
          tx,
          { ...document(i), tags: [], status: 'published', source: 'manual' },
          'bench',
          now,
        );
      }
    });
    process.stderr.write(`seed: ${Math.min(DOCUMENTS, start + 500)} documents\n`);
  }
  await db.query('VACUUM ANALYZE messaging_kb_chunks, messaging_kb_postings, messaging_kb_words');
}

/**
 * What the bounded candidate set costs in quality: for long questions (no spelling corrections), the
 * retrieval's top 3 against the top 3 of the same score computed over every chunk that holds any of the
 * question's words (the exhaustive ranking retrieval had before it had candidates).
 */
async function exactAgreement(pool: pg.Pool, retrieval: ReturnType<typeof createKbRetrieval>) {
  let sameTop1 = 0;
  let top1AsGood = 0;
  let top3Found = 0;
  let top3Total = 0;
  let scoreRatio = 0;
  const n = EXACT_SAMPLE;
  for (let i = 0; i < n; i++) {
    const text = query(3 * i + 1);
    const terms = queryTerms(text).join(' | ');
    const { rows } = await pool.query<{ id: string; score: number }>(
      `SELECT c.id, least(1, ts_rank_cd('{0.5, 0.5, 1, 1}', c.tsv, t.q, 0)
                 / greatest(1, (numnode(t.q) + 1) / 2))::float8 AS score
         FROM messaging_kb_chunks c
        CROSS JOIN LATERAL (SELECT to_tsquery(CASE WHEN c.language = 'en' THEN 'english' ELSE 'messaging_kb_id' END::regconfig, $1) AS q) t
        WHERE c.tsv @@ t.q ORDER BY score DESC, c.id LIMIT 3`,
      [terms],
    );
    const found = await retrieval.search(text, { limit: 3 });
    if (found[0]?.chunkId === rows[0]?.id) sameTop1++;
    if ((found[0]?.score ?? 0) >= (rows[0]?.score ?? 0) - 1e-9) top1AsGood++;
    const ids = new Set(found.map((hit) => hit.chunkId));
    top3Found += rows.filter((row) => ids.has(row.id)).length;
    top3Total += rows.length;
    scoreRatio += (found[0]?.score ?? 0) / (rows[0]?.score ?? 1);
  }
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    questions: n,
    sameTop1: round(sameTop1 / n),
    // Ties are common at the top (the score caps at 1): a different chunk with the best score is as good.
    top1ScoresAsHighAsExhaustive: round(top1AsGood / n),
    exhaustiveTop3Found: round(top3Found / top3Total),
    top1ScoreRatio: round(scoreRatio / n),
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const postgres = await startBenchPostgres();
try {
  await migrate(root, postgres.url);
  const db = pluginDatabase(postgres.url);
  const pool = db.pool;
  const seedStarted = performance.now();
  await seed(db);
  const seedSeconds = Math.round((performance.now() - seedStarted) / 100) / 10;
  const { rows } = await pool.query<{ chunks: number; id: string }>(
    `SELECT count(*)::int AS chunks, min(id::text) AS id FROM messaging_kb_chunks`,
  );
  const chunks = rows[0]?.chunks ?? 0;
  const someChunk = rows[0]?.id;
  const retrieval = createKbRetrieval({ db });
  const samples = {
    retrieval: [] as number[],
    short: [] as number[],
    long: [] as number[],
    baseline: [] as number[],
  };
  let hits = 0;
  // A warm-up pass over 200 queries (plans, caches) is not reported.
  for (let i = 0; i < 200; i++) await retrieval.search(query(QUERIES + i));
  for (let i = 0; i < QUERIES; i++) {
    const text = query(i);
    let found = 0;
    const ms = await timed(async () => {
      found = (await retrieval.search(text)).length;
    });
    if (found > 0) hits++;
    samples.retrieval.push(ms);
    (i % 3 === 0 ? samples.short : samples.long).push(ms);
    samples.baseline.push(
      await timed(() => pool.query(`SELECT id, text FROM messaging_kb_chunks WHERE id = $1`, [someChunk])),
    );
  }
  const agreement = await exactAgreement(pool, retrieval);
  const p95 = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return Math.round((sorted[Math.ceil(sorted.length * 0.95) - 1] ?? Number.NaN) * 10) / 10;
  };
  const report = {
    bench: 'kb-retrieval',
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' },
    documents: DOCUMENTS,
    chunks,
    seedSeconds,
    queries: QUERIES,
    queriesWithResults: hits,
    retrieval: { ...summarise(samples.retrieval), p95Ms: p95(samples.retrieval) },
    shortQueries: { ...summarise(samples.short), p95Ms: p95(samples.short) },
    longQueries: { ...summarise(samples.long), p95Ms: p95(samples.long) },
    baselinePrimaryKeyLookup: { ...summarise(samples.baseline), p95Ms: p95(samples.baseline) },
    againstExhaustiveRanking: agreement,
    targetP95Ms: TARGET_P95_MS,
    met: p95(samples.retrieval) <= TARGET_P95_MS,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  await pool.end();
  if (!report.met) process.exitCode = 1;
} finally {
  await postgres.stop();
}
