/**
 * Publishing a document shows in both places an admin looks (README, "Knowledge base", "Evaluation"): a gold-set
 * generalInfo question, asked through the real webhook and queue, gets the default answer and scores a miss in
 * an evaluation run while no published document answers it; once one is published the bot answers from it and
 * the next run is better (a later KB version, a positive delta); unpublishing reverts both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { postWebhook, textMessage } from '../../../test/support/messaging.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, staffClient } from '../../../test/support/staff-api.ts';
import { loadGoldSet } from '../src/classifier/gold-set.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
}, 60_000);
afterAll(() => stop?.());

const admin = () => staffClient(gateway, ADMIN);
let phone = 6281200000500;

const QUESTION = 'Do you have a library?';
const LIBRARY =
  '# Library\n\nThe campus library is open every day from 08:00 to 21:00, with 40,000 books and quiet rooms ' +
  'for students.';

interface Metrics {
  items: number;
  scored: number;
  hitAt1: number | null;
  hitAt3: number | null;
  mrr: number | null;
  answeredRate: number | null;
}
type Delta = Record<'hitAt1' | 'hitAt3' | 'mrr' | 'answeredRate', number | null>;
interface Run {
  kbVersion: number;
  metrics: { overall: Metrics; byLanguage: { en: Metrics } };
  delta: { overall: Delta | null; previousKbVersion: number | null };
}

/** Sends the question from a new contact; returns the template of the bot's reply and its text. */
async function ask(text: string): Promise<{ template: string; body: string }> {
  const from = String(phone++);
  expect((await postWebhook(gateway, textMessage({ from, text }))).status).toBe(200);
  const reply = async () => {
    const { rows } = await db.pool.query<{ template: string; text: string }>(
      `SELECT m.template, m.text FROM messaging_messages m
         JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
      [from],
    );
    return rows[0];
  };
  await expect.poll(reply, { timeout: 20_000 }).toBeDefined();
  const row = (await reply()) as { template: string; text: string };
  return { template: row.template, body: row.text };
}

/** The seeded item of `question`, walking the filtered item pages. */
async function seededItem(question: string): Promise<Record<string, unknown> & { id: string }> {
  let cursor: string | null = null;
  do {
    const res = await admin().get(
      `/api/v1/kb/evaluation/items?origin=gold&language=en&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    const page = (await res.json()) as {
      items: Array<Record<string, unknown> & { id: string; question: string }>;
      nextCursor: string | null;
    };
    const found = page.items.find((item) => item.question === question);
    if (found) return found;
    cursor = page.nextCursor;
  } while (cursor !== null);
  throw new Error(`no seeded item for ${question}`);
}

async function run(): Promise<Run> {
  const res = await admin().post('/api/v1/kb/evaluation/runs');
  expect(res.status).toBe(201);
  return (await res.json()) as Run;
}

async function setStatus(id: string, status: 'published' | 'draft'): Promise<void> {
  expect((await admin().patch(`/api/v1/kb/documents/${id}`, { json: { status } })).status).toBe(200);
}

describe('publishing a document that answers a gold-set question', () => {
  it('turns the default answer into a KB answer and the next run better; unpublishing reverts both', async () => {
    expect(loadGoldSet()).toContainEqual(expect.objectContaining({ text: QUESTION, intent: 'generalInfo' }));
    expect((await admin().post('/api/v1/kb/evaluation/seed')).status).toBe(200);
    const item = await seededItem(QUESTION);
    expect(item).toMatchObject({ expectedIntent: 'generalInfo', expectedDocumentIds: [] });

    const unanswered = await ask(QUESTION);
    expect(unanswered.template).toMatch(/^general_info/);

    // The document exists as a draft: the item can name it, and nothing answers from it yet.
    const created = await admin().post('/api/v1/kb/documents', {
      json: { title: 'Library', body: LIBRARY, language: 'en' },
    });
    expect(created.status).toBe(201);
    const { id: documentId } = (await created.json()) as { id: string };
    const { id: itemId, question, language, expectedIntent, heldOut } = item;
    const put = await admin().put(`/api/v1/kb/evaluation/items/${itemId}`, {
      json: { question, language, expectedIntent, heldOut, expectedDocumentIds: [documentId] },
    });
    expect(put.status).toBe(200);

    const miss = await run();
    expect(miss.metrics.overall).toMatchObject({ scored: 1, hitAt1: 0, hitAt3: 0, mrr: 0, answeredRate: 0 });

    await setStatus(documentId, 'published');
    const answered = await ask(QUESTION);
    expect(answered.template).toBe('kb_answer');
    expect(answered.body).toContain('open every day from 08:00 to 21:00');
    const better = await run();
    expect(better.kbVersion).toBeGreaterThan(miss.kbVersion);
    expect(better.metrics.overall).toMatchObject({ scored: 1, hitAt1: 1, hitAt3: 1, mrr: 1 });
    expect(better.metrics.byLanguage.en.hitAt1).toBe(1);
    expect(better.metrics.overall.answeredRate).toBeGreaterThan(0);
    expect(better.delta.previousKbVersion).toBe(miss.kbVersion);
    expect(better.delta.overall).toMatchObject({ hitAt1: 1, hitAt3: 1, mrr: 1 });
    expect(better.delta.overall?.answeredRate).toBeGreaterThan(0);

    await setStatus(documentId, 'draft');
    const reverted = await ask(QUESTION);
    expect(reverted.template).toMatch(/^general_info/);
    const worse = await run();
    expect(worse.kbVersion).toBeGreaterThan(better.kbVersion);
    expect(worse.metrics.overall).toMatchObject({ hitAt1: 0, answeredRate: 0 });
    expect(worse.delta.overall).toMatchObject({ hitAt1: -1, hitAt3: -1, mrr: -1 });
    expect(worse.delta.overall?.answeredRate).toBeLessThan(0);
  });
});
