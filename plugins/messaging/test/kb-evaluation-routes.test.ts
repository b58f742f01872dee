/**
 * The KB evaluation routes (README, "Knowledge base", "Evaluation") through booted gateways in enforce mode with
 * signed requests: who may write, what the item validation refuses, the 404s, seeding, the filtered item pages,
 * the run list, and one run at a time across two replicas on one database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import type { ProviderStub } from '../../../test/support/messaging.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffApiEnv, staffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let replica: TestGateway;

beforeAll(async () => {
  ({ db, provider, gateway, stop } = await startStaffApiHarness());
  replica = await startTestGateway({ databaseUrl: db.url, env: staffApiEnv(provider) });
}, 90_000);
afterAll(async () => {
  await replica?.close();
  await stop?.();
});

const ITEMS = '/api/v1/kb/evaluation/items';
const RUNS = '/api/v1/kb/evaluation/runs';
const NONE = '00000000-0000-4000-8000-000000000000';
const admin = () => staffClient(gateway, ADMIN);
const a1 = () => staffClient(gateway, agent('a1'));

interface Item {
  id: string;
  question: string;
  language: string;
  expectedDocumentIds: string[];
  expectedIntent: string | null;
  origin: string;
  heldOut: boolean;
}

interface Run {
  id: string;
  kbVersion: number;
  itemCount: number;
  createdBy: string;
  delta: { overall: unknown; previousKbVersion: number | null };
}

async function problemCode(res: Response, status: number): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as { code: string; requestId?: string };
  expect(typeof body.requestId).toBe('string');
  return body.code;
}

async function count(table: 'messaging_kb_eval_items' | 'messaging_kb_eval_runs'): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
  return rows[0]?.n ?? 0;
}

async function createDocument(): Promise<string> {
  const res = await admin().post('/api/v1/kb/documents', {
    json: { title: 'Perpustakaan', body: 'Perpustakaan buka setiap hari.', language: 'id' },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('KB evaluation routes', () => {
  it('refuse a run of an empty set with 422, recording nothing', async () => {
    expect(await problemCode(await admin().post(RUNS), 422)).toBe('messaging.kb.evaluation_set_empty');
    expect(await count('messaging_kb_eval_runs')).toBe(0);
  });

  it('let admins create, read, replace and delete an item', async () => {
    const doc = await createDocument();
    const created = await admin().post(ITEMS, {
      json: { question: 'jam buka perpustakaan?', language: 'id', expectedDocumentIds: [doc, doc] },
    });
    expect(created.status).toBe(201);
    const item = (await created.json()) as Item;
    expect(created.headers.get('location')).toBe(`${ITEMS}/${item.id}`);
    expect(item).toMatchObject({
      expectedDocumentIds: [doc],
      expectedIntent: null,
      origin: 'manual',
      heldOut: false,
    });
    expect(await (await a1().get(`${ITEMS}/${item.id}`)).json()).toEqual(item);

    const replaced = await admin().put(`${ITEMS}/${item.id}`, {
      json: { question: 'ada perpustakaan?', language: 'id', expectedIntent: 'generalInfo', heldOut: true },
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({
      id: item.id,
      question: 'ada perpustakaan?',
      expectedDocumentIds: [],
      expectedIntent: 'generalInfo',
      heldOut: true,
      origin: 'manual',
    });

    expect((await admin().delete(`${ITEMS}/${item.id}`)).status).toBe(204);
    expect(await problemCode(await admin().get(`${ITEMS}/${item.id}`), 404)).toBe(
      'messaging.kb.evaluation_item_not_found',
    );
  });

  it('refuse writes from an agent with 403 before validation, and let them read', async () => {
    const agentClient = a1();
    const writes = [
      agentClient.post(ITEMS, { json: { question: 'q', language: 'id', expectedIntent: 'askFees' } }),
      agentClient.post(ITEMS, { json: { bad: true } }),
      agentClient.put(`${ITEMS}/${NONE}`, {
        json: { question: 'q', language: 'id', expectedIntent: 'askFees' },
      }),
      agentClient.delete(`${ITEMS}/${NONE}`),
      agentClient.post('/api/v1/kb/evaluation/seed'),
      agentClient.post(RUNS),
    ];
    for (const res of await Promise.all(writes))
      expect(await problemCode(res, 403)).toBe('messaging.staff.admin_required');
    expect(await count('messaging_kb_eval_items')).toBe(0);
    expect((await agentClient.get(ITEMS)).status).toBe(200);
    expect((await agentClient.get(RUNS)).status).toBe(200);
  });

  it('validate items: 400 for a bad shape, 422 for a document that does not exist, nothing written', async () => {
    const valid = { question: 'ada asrama?', language: 'id', expectedIntent: 'generalInfo' };
    const bad: Array<Record<string, unknown>> = [
      { ...valid, question: '' },
      { ...valid, question: '   ' },
      { ...valid, question: 'x'.repeat(1001) },
      { ...valid, language: 'fr' },
      { ...valid, expectedIntent: 'notAnIntent' },
      { question: 'ada asrama?', language: 'id' },
      { question: 'ada asrama?', language: 'id', expectedDocumentIds: [] },
      { ...valid, expectedDocumentIds: ['not-a-uuid'] },
      {
        ...valid,
        expectedDocumentIds: Array.from({ length: 11 }, (_, i) => `${NONE.slice(0, -2)}${10 + i}`),
      },
      { ...valid, heldOut: 'yes' },
      { ...valid, origin: 'gold' },
    ];
    for (const json of bad) {
      const code = await problemCode(await admin().post(ITEMS, { json }), 400);
      expect(code, JSON.stringify(json).slice(0, 80)).toBe('validation.failed');
      expect(await problemCode(await admin().put(`${ITEMS}/${NONE}`, { json }), 400)).toBe(
        'validation.failed',
      );
    }
    expect(await problemCode(await admin().post(ITEMS, { raw: '{"question":' }), 400)).toBe(
      'request.malformed_json',
    );
    expect(
      await problemCode(await admin().post(ITEMS, { json: { ...valid, expectedDocumentIds: [NONE] } }), 422),
    ).toBe('messaging.kb.evaluation_document_unknown');
    expect(await count('messaging_kb_eval_items')).toBe(0);
  });

  it('refuse NUL and unpaired surrogates in a question with 400, writing nothing', async () => {
    for (const question of ['ada\\u0000 asrama?', 'ada asrama\\ud800?']) {
      const raw = `{"question":"${question}","language":"id","expectedIntent":"generalInfo"}`;
      expect(await problemCode(await admin().post(ITEMS, { raw }), 400)).toBe('request.invalid_text');
      expect(await problemCode(await admin().put(`${ITEMS}/${NONE}`, { raw }), 400)).toBe(
        'request.invalid_text',
      );
    }
    expect(await count('messaging_kb_eval_items')).toBe(0);
  });

  it('answer 404 for an item or run that does not exist, and 400 for a malformed id', async () => {
    const valid = { question: 'q', language: 'id', expectedIntent: 'askFees' };
    const notFound = 'messaging.kb.evaluation_item_not_found';
    expect(await problemCode(await admin().get(`${ITEMS}/${NONE}`), 404)).toBe(notFound);
    expect(await problemCode(await admin().put(`${ITEMS}/${NONE}`, { json: valid }), 404)).toBe(notFound);
    expect(await problemCode(await admin().delete(`${ITEMS}/${NONE}`), 404)).toBe(notFound);
    expect(await problemCode(await admin().get(`${RUNS}/${NONE}`), 404)).toBe(
      'messaging.kb.evaluation_run_not_found',
    );
    expect(await problemCode(await admin().get(`${RUNS}/nope`), 400)).toBe('validation.failed');
    expect(await count('messaging_kb_eval_items')).toBe(0);
  });

  it('seed from the gold set once, and list it in filtered keyset pages', async () => {
    const seeded = await admin().post('/api/v1/kb/evaluation/seed');
    expect(seeded.status).toBe(200);
    const first = (await seeded.json()) as { gold: number; corrections: number };
    expect(first.gold).toBeGreaterThan(300);
    expect(first.corrections).toBe(0);
    expect(await (await admin().post('/api/v1/kb/evaluation/seed')).json()).toEqual({
      gold: 0,
      corrections: 0,
    });
    expect(await count('messaging_kb_eval_items')).toBe(first.gold);

    const seen: Item[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `origin=gold&language=en&heldOut=true&limit=7${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await a1().get(`${ITEMS}?${query}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { items: Item[]; nextCursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(7);
      seen.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messaging_kb_eval_items WHERE language = 'en' AND held_out`,
    );
    expect(seen.length).toBe(rows[0]?.n);
    expect(new Set(seen.map((item) => item.id)).size).toBe(seen.length);
    expect(seen.every((i) => i.origin === 'gold' && i.language === 'en' && i.heldOut)).toBe(true);

    expect(await problemCode(await a1().get(`${ITEMS}?cursor=not-a-cursor`), 400)).toBe(
      'messaging.cursor.invalid',
    );
    expect(await problemCode(await a1().get(`${ITEMS}?heldOut=maybe`), 400)).toBe('validation.failed');
  });

  it('refuse a run while another replica holds the run, recording nothing', async () => {
    const other = await db.pool.connect();
    try {
      await other.query('SELECT pg_advisory_lock(7020002)');
      expect(await problemCode(await admin().post(RUNS), 409)).toBe('messaging.kb.evaluation_running');
    } finally {
      await other.query('SELECT pg_advisory_unlock(7020002)');
      other.release();
    }
    expect(await count('messaging_kb_eval_runs')).toBe(0);
  });

  it('run one at a time across two replicas: parallel starts get the run or 409, never two at once', async () => {
    const clients = [staffClient(gateway, ADMIN), staffClient(replica, ADMIN)] as const;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => clients[i % 2 === 0 ? 0 : 1].post(RUNS)),
    );
    const statuses = answers.map((res) => res.status);
    const created = statuses.filter((status) => status === 201).length;
    expect(created + statuses.filter((status) => status === 409).length).toBe(6);
    expect(created).toBeGreaterThanOrEqual(1);
    expect(created).toBeLessThan(6);
    for (const res of answers)
      if (res.status === 409) expect(await problemCode(res, 409)).toBe('messaging.kb.evaluation_running');
    expect(await count('messaging_kb_eval_runs')).toBe(created);
  });

  it('list runs newest first in pages, each with the delta to the run before it', async () => {
    const started = await admin().post(RUNS);
    expect(started.status).toBe(201);
    const run = (await started.json()) as Run;
    expect(run).toMatchObject({ createdBy: ADMIN.sub });
    expect(run.itemCount).toBeGreaterThan(300);
    expect(run.delta.previousKbVersion).toBe(run.kbVersion);
    expect(await (await a1().get(`${RUNS}/${run.id}`)).json()).toEqual(run);

    const total = await count('messaging_kb_eval_runs');
    const walked: Run[] = [];
    let cursor: string | null = null;
    do {
      const res = await a1().get(`${RUNS}?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      const page = (await res.json()) as { items: Run[]; nextCursor: string | null };
      walked.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(walked.length).toBe(total);
    expect(walked[0]).toEqual(run);
    expect(walked.at(-1)?.delta).toEqual({ overall: null, heldOut: null, previousKbVersion: null });
    for (const listed of walked)
      expect(await (await a1().get(`${RUNS}/${listed.id}`)).json()).toEqual(listed);
  });
});
