/**
 * Conversations end to end: messages through the real webhook, processed by the
 * queue, classified, stepped through lead capture, replies sent to the stand-in send API, the lead
 * upserted and staff notified. Time is a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createManualClock } from '../../../test/support/core.ts';
import {
  postWebhook,
  startMessagingGateway,
  startProviderStub,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { processEnv, spawnGateway } from '../../../test/support/process.ts';

const HOUR = 3_600_000;
const CLUSTER_NUMBER = '106540352242999';
let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;
const clock = createManualClock(Date.now());

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const child = spawnGateway({
    args: ['messaging', ...args],
    env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn', GATEWAY_PLUGINS: 'auth,messaging' }),
  });
  child.child.stdin.end();
  expect(await child.exited, child.stderr()).toBe(0);
  return JSON.parse(child.stdout()) as Record<string, unknown>;
}

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  const cluster = await cli([
    'cluster',
    'create',
    '--name',
    'Admissions',
    '--phone-number-id',
    CLUSTER_NUMBER,
  ]);
  await cli(['cluster', 'add-member', '--cluster', String(cluster.id), '--user', 'agent-siti']);
  await cli(['recipient', 'add', '--user', 'head-of-admissions']);
  gateway = await startMessagingGateway({ databaseUrl: db.url, provider, clock });
});
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
  await db?.drop();
});

/** Sends one message and waits for the reply (or replies) it causes; returns their template ids. */
async function say(from: string, text: string, replies = 1): Promise<string[]> {
  const before = await outboundCount(from);
  expect(
    (await postWebhook(gateway, textMessage({ from, text, phoneNumberId: CLUSTER_NUMBER }))).status,
  ).toBe(200);
  await expect.poll(() => outboundCount(from)).toBe(before + replies);
  const { rows } = await db.pool.query<{ template: string }>(
    `SELECT m.template FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.direction = 'outbound' ORDER BY m.seq OFFSET $2`,
    [from, before],
  );
  return rows.map((row) => row.template);
}

async function outboundCount(from: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
    [from],
  );
  return Number(rows[0]?.n);
}

async function leadOf(from: string) {
  const { rows } = await db.pool.query<{
    name: string | null;
    email: string | null;
    phone: string | null;
    status: string;
  }>(
    `SELECT l.name, l.email, l.phone, l.status FROM messaging_leads l
       JOIN messaging_conversations c ON c.id = l.conversation_id WHERE c.contact_phone = $1`,
    [from],
  );
  return rows[0] ?? null;
}

async function notificationsOf(from: string) {
  const { rows } = await db.pool.query<{ user_id: string; kind: string; event_key: string }>(
    `SELECT n.user_id, n.kind, n.event_key FROM messaging_notifications n
       JOIN messaging_conversations c ON c.id = n.conversation_id WHERE c.contact_phone = $1 ORDER BY n.user_id`,
    [from],
  );
  return rows;
}

describe('lead capture through the webhook', () => {
  it('halo → greeting; saya mau daftar → name; nama saya Budi Santoso → email; the email → qualified (the sender number is the phone), cluster notified', async () => {
    const from = '6281311110001';
    expect(await say(from, 'halo')).toEqual(['greeting']);
    expect(await say(from, 'saya mau daftar')).toEqual(['ask_name']);
    // Capture has started: the lead takes the sender's WhatsApp number as its phone.
    expect(await leadOf(from)).toEqual({ name: null, email: null, phone: from, status: 'incomplete' });
    const askEmail = await say(from, 'nama saya Budi Santoso');
    expect(askEmail).toHaveLength(1);
    expect(askEmail[0]).toMatch(/^ask_email/);
    expect(await leadOf(from)).toMatchObject({ name: 'Budi Santoso', email: null, status: 'incomplete' });
    expect(await say(from, 'budi@example.com')).toEqual(['lead_captured']);
    expect(await leadOf(from)).toEqual({
      name: 'Budi Santoso',
      email: 'budi@example.com',
      phone: from,
      status: 'qualified',
    });
    const notes = await notificationsOf(from);
    expect(notes).toEqual([
      {
        user_id: 'agent-siti',
        kind: 'lead.captured',
        event_key: expect.stringMatching(/^lead_captured:/) as unknown,
      },
    ]);
    // The replies went out through the send API, in Indonesian, to the contact.
    await expect.poll(() => provider.sent.filter((s) => s.body.to === from).length).toBe(4);
    const texts = provider.sent.filter((s) => s.body.to === from).map((s) => s.body.text.body);
    expect(texts[3]).toContain('Budi Santoso');
  });

  it('accepts the email first, then asks only for the name', async () => {
    const from = '6281311110002';
    expect(await say(from, 'saya mau daftar')).toEqual(['ask_name']);
    const afterEmail = await say(from, 'email saya rina@example.com');
    expect(afterEmail).toHaveLength(1);
    expect(afterEmail[0]).toMatch(/^ask_name/);
    expect(await leadOf(from)).toMatchObject({ email: 'rina@example.com', name: null, status: 'incomplete' });
    expect(await say(from, 'nama saya Rina Wulandari')).toEqual(['lead_captured']);
    expect(await leadOf(from)).toMatchObject({
      name: 'Rina Wulandari',
      email: 'rina@example.com',
      status: 'qualified',
    });
    expect((await notificationsOf(from)).map((n) => n.kind)).toEqual(['lead.captured']);
  });

  it('expires an idle session after 6 hours and restarts it cleanly once', async () => {
    const from = '6281311110003';
    expect(await say(from, 'saya mau daftar')).toEqual(['ask_name']);
    clock.advance(6 * HOUR + 60_000);
    // A bare name after the session expired is not taken as the answer to a question asked 6 h ago.
    const late = await say(from, 'Andi');
    expect(late).not.toContain('ask_email');
    expect((await leadOf(from))?.name ?? null).toBeNull();
    expect(await say(from, 'saya mau daftar')).toEqual(['ask_name']);
    const answer = await say(from, 'nama saya Andi Pratama');
    expect(answer[0]).toMatch(/^ask_email/);
    const { rows } = await db.pool.query<{ capture: { state: string } }>(
      'SELECT capture FROM messaging_conversations WHERE contact_phone = $1',
      [from],
    );
    expect(rows[0]?.capture.state).toBe('awaiting_email');
  });

  it('escalates "bicara dengan admin" to the cluster and the global recipients', async () => {
    const from = '6281311110004';
    expect(await say(from, 'saya mau bicara dengan admin')).toEqual(['ask_human']);
    expect((await notificationsOf(from)).map((n) => [n.user_id, n.kind])).toEqual([
      ['agent-siti', 'escalation.ask_human'],
      ['head-of-admissions', 'escalation.ask_human'],
    ]);
  });

  it('stores the tier, intent, score and margin with each message', async () => {
    const from = '6281311110005';
    await say(from, 'berapa biaya kuliah per semester?');
    const { rows } = await db.pool.query<{ tier: number; intent: string; score: number }>(
      `SELECT m.tier, m.intent, m.score FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE c.contact_phone = $1 AND m.direction = 'inbound'`,
      [from],
    );
    expect(rows[0]).toMatchObject({ intent: 'askFees' });
    expect([1, 2]).toContain(rows[0]?.tier);
  });
});
