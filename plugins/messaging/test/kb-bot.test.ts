/**
 * The bot answering from the knowledge base (README, "Knowledge base", "How the bot answers"): a generalInfo
 * question through the real webhook and queue gets the default answer while no document answers it, the
 * published chunk once one does, and the default answer again after unpublishing; every lookup is recorded
 * in messaging_kb_answers with its chunks, scores and the KB version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { postWebhook, textMessage } from '../../../test/support/messaging.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, staffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
}, 60_000);
afterAll(() => stop?.());

const admin = () => staffClient(gateway, ADMIN);
let phone = 6281200000100;

/** Sends one message from a new contact; returns the bot's reply (template, text) and the inbound id. */
async function ask(text: string): Promise<{ template: string; body: string; inbound: string }> {
  const from = String(phone++);
  expect((await postWebhook(gateway, textMessage({ from, text }))).status).toBe(200);
  const reply = async () => {
    const { rows } = await db.pool.query<{ template: string; text: string; in_reply_to: string }>(
      `SELECT m.template, m.text, m.in_reply_to FROM messaging_messages m
         JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
      [from],
    );
    return rows[0];
  };
  await expect.poll(reply, { timeout: 20_000 }).toBeDefined();
  const row = (await reply()) as { template: string; text: string; in_reply_to: string };
  return { template: row.template, body: row.text, inbound: row.in_reply_to };
}

async function answerRow(messageId: string) {
  const { rows } = await db.pool.query<{
    answered: boolean;
    chunk_ids: string[];
    scores: number[];
    kb_version: string;
  }>(`SELECT answered, chunk_ids, scores, kb_version FROM messaging_kb_answers WHERE message_id = $1`, [
    messageId,
  ]);
  return rows[0];
}

const QUESTION = 'Apakah kampus menyediakan asrama untuk mahasiswa baru?';
const DORMITORY =
  '# Asrama\n\nKampus menyediakan asrama untuk mahasiswa baru di dekat gedung rektorat. Biaya asrama ' +
  'Rp 900.000 per bulan, sudah termasuk listrik dan air.';

describe('generalInfo answered from the knowledge base', () => {
  it('answers from a published chunk, not before publishing nor after unpublishing, and records each lookup', async () => {
    const before = await ask(QUESTION);
    expect(before.template).toMatch(/^general_info/);
    const missed = await answerRow(before.inbound);
    expect(missed).toMatchObject({ answered: false, chunk_ids: [] });

    const created = await admin().post('/api/v1/kb/documents', {
      json: { title: 'Asrama', body: DORMITORY, language: 'id', status: 'published' },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const { rows: chunks } = await db.pool.query<{ id: string }>(
      `SELECT id FROM messaging_kb_chunks WHERE document_id = $1`,
      [id],
    );

    const answered = await ask(QUESTION);
    expect(answered.template).toBe('kb_answer');
    expect(answered.body).toContain('Rp 900.000 per bulan');
    const hit = await answerRow(answered.inbound);
    expect(hit?.answered).toBe(true);
    expect(hit?.chunk_ids[0]).toBe(chunks[0]?.id);
    expect(hit?.scores[0]).toBeGreaterThan(0.4);
    expect(Number(hit?.kb_version)).toBeGreaterThan(Number(missed?.kb_version));

    expect((await admin().patch(`/api/v1/kb/documents/${id}`, { json: { status: 'draft' } })).status).toBe(
      200,
    );
    const after = await ask(QUESTION);
    expect(after.template).toMatch(/^general_info/);
    expect((await answerRow(after.inbound))?.answered).toBe(false);
  });

  it('leaves the other intents alone', async () => {
    await admin().post('/api/v1/kb/documents', {
      json: {
        title: 'Biaya kuliah',
        body: 'Biaya kuliah Rp 5.000.000 per semester.',
        language: 'id',
        status: 'published',
      },
    });
    const fees = await ask('berapa biaya kuliah?');
    expect(fees.template).toBe('fees');
    expect(await answerRow(fees.inbound)).toBeUndefined();
  });
});
