/**
 * The local FAQ (README, "FAQ"), through the booted gateway on PostgreSQL: admins write entries and agents
 * read them; bad input is refused whole; a published entry's question variant in an inbound message is
 * answered with its answer, and an unpublished or archived one no longer is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { postWebhook, textMessage, type ProviderStub } from '../../../test/support/messaging.ts';
import { ADMIN, agent, staffClient } from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  ({ db, provider, gateway, stop } = await startStaffApiHarness());
}, 60_000);
afterAll(() => stop?.());

const admin = () => staffClient(gateway, ADMIN);
const agentA = () => staffClient(gateway, agent('a1'));

interface Entry {
  id: string;
  questions: string[];
  answer: string;
  published: boolean;
  archived: boolean;
  origin: string;
  externalId: string | null;
}

async function createEntry(body: Record<string, unknown>): Promise<Entry> {
  const res = await admin().post('/api/v1/faq', { json: body });
  expect(res.status).toBe(201);
  const entry = (await res.json()) as Entry;
  expect(res.headers.get('location')).toBe(`/api/v1/faq/${entry.id}`);
  return entry;
}

let sender = 0;
/** Posts a customer message from a fresh number and waits for the bot's reply to it. */
async function askBot(text: string): Promise<string> {
  const from = `6281300${String(++sender).padStart(5, '0')}`;
  const before = provider.sent.length;
  expect((await postWebhook(gateway, textMessage({ from, text }))).status).toBe(200);
  const reply = await eventually('the bot replies', 15_000, () =>
    Promise.resolve(provider.sent.slice(before).find((sent) => sent.body.to === from)),
  );
  return reply.body.text.body;
}

describe('FAQ entries', () => {
  it('admins create, update and archive; agents read; nobody else writes', async () => {
    const entry = await createEntry({
      questions: ['Apakah ada parkir motor?'],
      answer: 'Ada, gratis.',
      language: 'id',
    });
    expect(entry).toMatchObject({ published: false, archived: false, origin: 'local', externalId: null });

    const read = await agentA().get(`/api/v1/faq/${entry.id}`);
    expect(read.status).toBe(200);
    const list = (await (await agentA().get('/api/v1/faq')).json()) as { items: Entry[] };
    expect(list.items.map((e) => e.id)).toContain(entry.id);

    const refused = await agentA().post('/api/v1/faq', {
      json: { questions: ['x'], answer: 'y', language: 'id' },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('messaging.staff.admin_required');
    expect((await agentA().patch(`/api/v1/faq/${entry.id}`, { json: { published: true } })).status).toBe(403);
    expect((await agentA().delete(`/api/v1/faq/${entry.id}`)).status).toBe(403);

    const patched = await admin().patch(`/api/v1/faq/${entry.id}`, { json: { published: true } });
    expect(await patched.json()).toMatchObject({ published: true, locallyEdited: false });

    expect((await admin().delete(`/api/v1/faq/${entry.id}`)).status).toBe(204);
    expect(await (await admin().get(`/api/v1/faq/${entry.id}`)).json()).toMatchObject({ archived: true });
    const archived = (await (await admin().get('/api/v1/faq?archived=true')).json()) as { items: Entry[] };
    expect(archived.items.map((e) => e.id)).toContain(entry.id);
    const edit = await admin().patch(`/api/v1/faq/${entry.id}`, { json: { answer: 'x' } });
    expect(edit.status).toBe(409);
    expect(((await edit.json()) as { code: string }).code).toBe('messaging.faq.archived');
  });

  it('refuses bad input whole, with a stable code', async () => {
    const cases: unknown[] = [
      { questions: [], answer: 'a', language: 'id' },
      { questions: Array.from({ length: 21 }, (_, i) => `q${i}`), answer: 'a', language: 'id' },
      { questions: ['  '], answer: 'a', language: 'id' },
      { questions: ['q'], answer: '', language: 'id' },
      { questions: ['q'], answer: 'a', language: 'fr' },
      { questions: ['q'], answer: 'a', language: 'id', origin: 'synced' },
    ];
    for (const body of cases) {
      const res = await admin().post('/api/v1/faq', { json: body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('validation.failed');
    }
    const { rows } = await db.pool.query(`SELECT 1 FROM messaging_faq_entries WHERE answer IN ('a', '')`);
    expect(rows).toHaveLength(0);
    const missing = await admin().get('/api/v1/faq/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { code: string }).code).toBe('messaging.faq.not_found');
    expect((await admin().get('/api/v1/faq/not-a-uuid')).status).toBe(400);
    expect((await admin().get('/api/v1/faq?cursor=bogus')).status).toBe(400);
  });

  it('answers an inbound message that asks a published question with its answer, and stops when unpublished', async () => {
    const answer = 'Ya, kampus punya asrama putra dan putri dekat gedung utama.';
    const entry = await createEntry({
      questions: ['Apakah kampus punya asrama?', 'ada asrama mahasiswa'],
      answer,
      language: 'id',
      published: true,
    });
    expect(await askBot('halo kak, apakah kampus punya asrama?')).toBe(answer);
    expect(await askBot('Ada asrama mahasiswa gak ya')).toBe(answer);
    const { rows } = await db.pool.query<{ template: string; tier: number }>(
      `SELECT o.template, i.tier FROM messaging_messages o JOIN messaging_messages i ON i.id = o.in_reply_to
        WHERE o.text = $1 LIMIT 1`,
      [answer],
    );
    expect(rows[0]).toEqual({ template: 'faq', tier: 1 });

    // Unpublished: the next message gets the bot's ordinary answer.
    await admin().patch(`/api/v1/faq/${entry.id}`, { json: { published: false } });
    expect(await askBot('apakah kampus punya asrama?')).not.toBe(answer);
  });
});
