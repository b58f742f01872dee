/**
 * Paths of lead capture that the engine's unit tests cover, here end to end (plugins/messaging/README.md,
 * "How a message flows", point 4, and "Conversations and lead capture"): messages through the real webhook,
 * processed by the queue on PostgreSQL, replies to the stand-in send API. The lead's phone from the sender's
 * WhatsApp number (so `qualified` is reached in a real conversation), the `wantVisitCampus` handler, and the
 * lead extractor asking a language model (a stand-in OpenAI-compatible server on loopback) when its regular
 * expressions read nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
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
import {
  startModelStandIn,
  type ModelAnswer,
  type ModelRequest,
  type ModelStandIn,
} from '../../../test/support/model-stand-in.ts';
import { processEnv, spawnGateway } from '../../../test/support/process.ts';

const CLUSTER_NUMBER = '106540352243017';
const AGENT = 'agent-paths';
const HEAD = 'head-paths';

let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;
let model: ModelStandIn;
const clock = createManualClock(Date.now());
/** What the stand-in answers to the lead extractor's requests (the classifier's get a 503: tier 4). */
let extractionAnswer: () => ModelAnswer;

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
  model = await startModelStandIn();
  model.answerWith((request) => (isExtraction(request) ? extractionAnswer() : { status: 503 }));
  const cluster = await cli([
    'cluster',
    'create',
    '--name',
    'Admissions',
    '--phone-number-id',
    CLUSTER_NUMBER,
  ]);
  await cli(['cluster', 'add-member', '--cluster', String(cluster.id), '--user', AGENT]);
  await cli(['recipient', 'add', '--user', HEAD]);
  gateway = await startMessagingGateway({
    databaseUrl: db.url,
    provider,
    clock,
    env: {
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'stand-in-1',
      LLM_API_KEY: 'llm-key',
      // Long enough for a loaded machine to answer on loopback; a hanging answer costs this much.
      LLM_TIMEOUT_MS: '1000',
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await model?.close();
  await provider?.close();
  await db?.drop();
});
beforeEach(() => {
  extractionAnswer = () => ({ json: {} });
});

/** The lead extractor's request, told from the classifier's by its system prompt. */
function isExtraction(request: ModelRequest): boolean {
  return request.body.messages[0]?.content.startsWith('You extract the contact details') ?? false;
}

function extractionRequestsFor(text: string): ModelRequest[] {
  return model.requests.filter((r) => isExtraction(r) && r.body.messages[1]?.content === text);
}

/** A contact: a WhatsApp number (`from`), or a username-only user (`from_user_id`, no phone). */
type Contact = { from: string } | { userId: string };

const contactKey = (contact: Contact) =>
  'from' in contact ? `wa:${contact.from}` : `user:${contact.userId}`;

/** One text message from the contact to the cluster's number, as the provider sends it. */
function messageFrom(contact: Contact, text: string): Record<string, unknown> {
  if ('from' in contact) return textMessage({ from: contact.from, text, phoneNumberId: CLUSTER_NUMBER });
  const payload = textMessage({ from: 'placeholder', text, phoneNumberId: CLUSTER_NUMBER }) as {
    entry: Array<{
      changes: Array<{ value: { contacts: unknown[]; messages: Array<Record<string, unknown>> } }>;
    }>;
  };
  const value = payload.entry[0]?.changes[0]?.value;
  const message = value?.messages[0];
  if (!value || !message) throw new Error('textMessage changed shape');
  delete message.from;
  message.from_user_id = contact.userId;
  value.contacts = [{ profile: { name: 'Budi' }, user_id: contact.userId }];
  return payload;
}

/** Sends one message and waits for the replies it causes; returns their template ids. */
async function say(contact: Contact, text: string, replies = 1): Promise<string[]> {
  const before = await outboundCount(contact);
  expect((await postWebhook(gateway, messageFrom(contact, text))).status).toBe(200);
  await expect.poll(() => outboundCount(contact)).toBe(before + replies);
  const { rows } = await db.pool.query<{ template: string }>(
    `SELECT m.template FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_key = $1 AND m.direction = 'outbound' ORDER BY m.seq OFFSET $2`,
    [contactKey(contact), before],
  );
  return rows.map((row) => row.template);
}

async function outboundCount(contact: Contact): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_key = $1 AND m.direction = 'outbound'`,
    [contactKey(contact)],
  );
  return Number(rows[0]?.n);
}

async function leadOf(contact: Contact) {
  const { rows } = await db.pool.query<{
    name: string | null;
    email: string | null;
    phone: string | null;
    status: string;
  }>(
    `SELECT l.name, l.email, l.phone, l.status FROM messaging_leads l
       JOIN messaging_conversations c ON c.id = l.conversation_id WHERE c.contact_key = $1`,
    [contactKey(contact)],
  );
  return rows[0] ?? null;
}

/** Every inbound message of the contact, in order: each processed at its first attempt, none dead. */
async function inboundOf(contact: Contact) {
  const { rows } = await db.pool.query<{
    intent: string | null;
    processing_status: string;
    attempts: number;
    last_error: string | null;
  }>(
    `SELECT m.intent, m.processing_status, m.attempts, m.last_error FROM messaging_messages m
       JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_key = $1 AND m.direction = 'inbound' ORDER BY m.seq`,
    [contactKey(contact)],
  );
  return rows;
}

async function notificationsOf(contact: Contact) {
  const { rows } = await db.pool.query<{ user_id: string; kind: string; event_key: string }>(
    `SELECT n.user_id, n.kind, n.event_key FROM messaging_notifications n
       JOIN messaging_conversations c ON c.id = n.conversation_id WHERE c.contact_key = $1
      ORDER BY n.kind, n.user_id`,
    [contactKey(contact)],
  );
  return rows;
}

/** halo-less registration: the wish, the name, the email; the last reply is `lead_captured`. */
async function register(contact: Contact, name: string, email: string): Promise<void> {
  expect(await say(contact, 'saya mau daftar')).toEqual(['ask_name']);
  expect(await say(contact, `nama saya ${name}`)).toEqual(['ask_email_after_name']);
  expect(await say(contact, email)).toEqual(['lead_captured']);
}

describe("the lead's phone from the sender's WhatsApp number", () => {
  it('an Indonesian number: the name, then the email → qualified, with the sender number as the phone', async () => {
    const contact = { from: '6281377770001' };
    expect(await say(contact, 'halo')).toEqual(['greeting']);
    // A greeting creates no lead; the wish to register does, with the number it came from.
    expect(await leadOf(contact)).toBeNull();
    expect(await say(contact, 'saya mau daftar')).toEqual(['ask_name']);
    expect(await leadOf(contact)).toEqual({
      name: null,
      email: null,
      phone: '6281377770001',
      status: 'incomplete',
    });
    expect(await say(contact, 'nama saya Sari Wulandari')).toEqual(['ask_email_after_name']);
    expect(await say(contact, 'sari@example.com')).toEqual(['lead_captured']);
    expect(await leadOf(contact)).toEqual({
      name: 'Sari Wulandari',
      email: 'sari@example.com',
      phone: '6281377770001',
      status: 'qualified',
    });
    // Complete is complete: the cluster hears of the lead once.
    expect(await notificationsOf(contact)).toEqual([
      {
        user_id: AGENT,
        kind: 'lead.captured',
        event_key: expect.stringMatching(/^lead_captured:/) as unknown,
      },
    ]);
  });

  it('a foreign number: captured with no phone, and every message processed at its first attempt', async () => {
    const contact = { from: '4915112345678' };
    await register(contact, 'Hans Becker', 'hans@example.com');
    expect(await leadOf(contact)).toEqual({
      name: 'Hans Becker',
      email: 'hans@example.com',
      phone: null,
      status: 'captured',
    });
    const inbound = await inboundOf(contact);
    expect(inbound).toHaveLength(3);
    for (const message of inbound) {
      expect(message).toMatchObject({ processing_status: 'processed', attempts: 1, last_error: null });
    }
  });

  it('a captured lead that gains a phone becomes qualified without being announced again', async () => {
    const contact = { from: '4915112345679' };
    await register(contact, 'Lena Vogel', 'lena@example.com');
    expect((await notificationsOf(contact)).map((n) => n.kind)).toEqual(['lead.captured']);
    // Past the 30 s in which the database would swallow a repeated notification anyway.
    clock.advance(31_000);
    expect(await say(contact, 'nomor saya 0813 7777 0999')).toEqual(['lead_updated']);
    expect(await leadOf(contact)).toMatchObject({ phone: '6281377770999', status: 'qualified' });
    expect((await notificationsOf(contact)).map((n) => n.kind)).toEqual(['lead.captured']);
  });

  it('a username-only user (no phone number): captured with no phone', async () => {
    const contact = { userId: 'ID.27771234567890' };
    await register(contact, 'Maya Putri', 'maya@example.com');
    expect(await leadOf(contact)).toEqual({
      name: 'Maya Putri',
      email: 'maya@example.com',
      phone: null,
      status: 'captured',
    });
    // Answered by user id.
    expect(provider.sent.filter((s) => s.body.to === contact.userId)).toHaveLength(3);
  });

  it('a number the contact writes wins over the sender number, before or after it was taken', async () => {
    const contact = { from: '6281377770004' };
    expect(await say(contact, 'saya mau daftar')).toEqual(['ask_name']);
    expect((await leadOf(contact))?.phone).toBe('6281377770004');
    expect(await say(contact, 'nama saya Budi Santoso, wa saya 0857 1234 5678')).toEqual([
      'ask_email_after_name',
    ]);
    expect(await say(contact, 'budi@example.com')).toEqual(['lead_captured']);
    expect(await leadOf(contact)).toEqual({
      name: 'Budi Santoso',
      email: 'budi@example.com',
      phone: '6285712345678',
      status: 'qualified',
    });

    // Written first: the sender number never replaces it.
    const other = { from: '6281377770005' };
    expect(await say(other, 'nomor saya 0813 9999 8888')).toEqual(['ask_name']);
    await say(other, 'nama saya Rina Marlina');
    await say(other, 'rina@example.com');
    expect(await leadOf(other)).toMatchObject({ phone: '6281399998888', status: 'qualified' });
  });
});

describe('wantVisitCampus', () => {
  it('answers with the invitation and tells the global recipients; no lead without capture', async () => {
    const contact = { from: '6281377770101' };
    expect(await say(contact, 'kak boleh datang langsung ke kampus?')).toEqual(['visit_campus']);
    expect(await inboundOf(contact)).toMatchObject([
      { intent: 'wantVisitCampus', processing_status: 'processed' },
    ]);
    expect(await notificationsOf(contact)).toEqual([
      {
        user_id: HEAD,
        kind: 'admin.notice',
        event_key: expect.stringMatching(/^visit_interest:/) as unknown,
      },
    ]);
    expect(await leadOf(contact)).toBeNull();
    await expect.poll(() => provider.sent.filter((s) => s.body.to === contact.from).length).toBe(1);
    expect(provider.sent.find((s) => s.body.to === contact.from)?.body.text.body).toMatch(/kunjungan/);
  });

  it('with an email in the message: the invitation, then the capture prompt; the lead and the notice', async () => {
    const contact = { from: '6281377770102' };
    expect(await say(contact, 'boleh survei kampus? dewi@example.com', 2)).toEqual([
      'visit_campus',
      'ask_name_after_email',
    ]);
    expect(await leadOf(contact)).toEqual({
      name: null,
      email: 'dewi@example.com',
      phone: '6281377770102',
      status: 'incomplete',
    });
    expect((await notificationsOf(contact)).map((n) => [n.user_id, n.kind])).toEqual([
      [HEAD, 'admin.notice'],
    ]);
    expect(await say(contact, 'nama saya Dewi Anggraini')).toEqual(['lead_captured']);
    expect(await leadOf(contact)).toMatchObject({ name: 'Dewi Anggraini', status: 'qualified' });
  });
});

describe('lead extraction by the language model', () => {
  it('takes the name the model reads in a reply the expressions cannot read, into the lead', async () => {
    const contact = { from: '6281377770201' };
    expect(await say(contact, 'saya mau daftar')).toEqual(['ask_name']);
    extractionAnswer = () => ({ json: { name: 'Budi', email: null, phone: null } });
    expect(await say(contact, 'kenalin, gue budi')).toEqual(['ask_email_after_name']);
    const [request] = extractionRequestsFor('kenalin, gue budi');
    expect(request?.authorization).toBe('Bearer llm-key');
    expect(request?.body.messages[0]?.content).toContain('just asked the sender for their name');
    expect(await leadOf(contact)).toEqual({
      name: 'Budi',
      email: null,
      phone: '6281377770201',
      status: 'incomplete',
    });
    extractionAnswer = () => ({ json: {} });
    expect(await say(contact, 'budi@example.com')).toEqual(['lead_captured']);
    expect(await leadOf(contact)).toMatchObject({ name: 'Budi', status: 'qualified' });
    // The email was read by the expressions: no model call for it.
    expect(extractionRequestsFor('budi@example.com')).toEqual([]);
  });

  it("lets the model choose between two written numbers; its choice replaces the sender's", async () => {
    const contact = { from: '6281377770202' };
    const text = 'hp 0812 3456 7890 atau 0857-1234-5678 (wa)';
    extractionAnswer = () => ({ json: { name: null, email: null, phone: '+62 857 1234 5678' } });
    expect(await say(contact, text)).toEqual(['ask_name']);
    expect(extractionRequestsFor(text)).toHaveLength(1);
    expect(await leadOf(contact)).toMatchObject({ phone: '6285712345678', status: 'incomplete' });
  });

  it.each([
    ['content that is not JSON', '6281377770301', { content: 'The name is Budi.' }],
    ['JSON that fails the schema', '6281377770302', { json: { name: 42 } }],
    ['a name the message does not contain', '6281377770303', { json: { name: 'Bambang Susilo' } }],
    ['an HTTP error', '6281377770304', { status: 500 }],
    ['no answer within LLM_TIMEOUT_MS', '6281377770305', { hang: true }],
  ] as const)('falls back to re-asking on %s, and the message is processed', async (_why, from, answer) => {
    const contact = { from };
    expect(await say(contact, 'saya mau daftar')).toEqual(['ask_name']);
    extractionAnswer = () => answer;
    const before = model.requests.filter(isExtraction).length;
    expect(await say(contact, 'kenalin, gue budi')).toEqual(['reask_name']);
    expect(model.requests.filter(isExtraction).length).toBe(before + 1);
    expect(await leadOf(contact)).toEqual({
      name: null,
      email: null,
      phone: contact.from,
      status: 'incomplete',
    });
    for (const message of await inboundOf(contact)) {
      expect(message).toMatchObject({ processing_status: 'processed', attempts: 1, last_error: null });
    }
  });
});
