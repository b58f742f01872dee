/**
 * The provider webhook (issue 6, point 1; DECISIONS.md, "Provider format" and "Durability"): public sample
 * payloads of the WhatsApp Cloud API, every entry and message stored once, bodies that are not notifications
 * refused with nothing stored, a malformed message rejected alone, duplicates changing nothing, and the
 * optional X-Hub-Signature-256.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubSignature } from '../src/domain/hub-signature.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  API_TOKEN,
  postWebhook,
  startMessagingGateway,
  startProviderStub,
  textMessage,
  VERIFY_TOKEN,
  type ProviderStub,
} from '../../../test/support/messaging.ts';

let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;

const fixture = async (name: string) =>
  JSON.parse(await readFile(new URL(`./fixtures/whatsapp/${name}.json`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const count = async (sql: string, values: unknown[] = []) =>
  Number((await db.pool.query<{ n: string }>(sql, values)).rows[0]?.n);

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  gateway = await startMessagingGateway({ databaseUrl: db.url, provider });
});
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
  await db?.drop();
});

describe('GET /webhook/chat (subscription verification)', () => {
  it('answers the challenge as text/plain for the configured token', async () => {
    const res = await fetch(
      `${gateway.url}/webhook/chat?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1158201444');
  });

  it('answers 403 problem+json for a wrong token or mode', async () => {
    for (const query of [
      'hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1',
      `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
      'hub.challenge=1',
    ]) {
      const res = await fetch(`${gateway.url}/webhook/chat?${query}`);
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'messaging.webhook.verification_failed' });
    }
  });
});

describe('POST /webhook/chat', () => {
  it('stores the public sample text message with its type and text, and replies through the send API', async () => {
    const res = await postWebhook(gateway, await fixture('text-message'));
    expect(res.status).toBe(200);
    const { rows } = await db.pool.query(
      `SELECT m.type, m.text, c.contact_phone, c.contact_name, c.phone_number_id
         FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE m.provider_message_id = $1`,
      ['wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA='],
    );
    expect(rows).toEqual([
      {
        type: 'text',
        text: 'Does it come in another color?',
        contact_phone: '16505551234',
        contact_name: 'Sheena Nelson',
        phone_number_id: '106540352242922',
      },
    ]);
    await expect.poll(() => provider.sent.filter((s) => s.body.to === '16505551234').length).toBe(1);
    const reply = provider.sent.find((s) => s.body.to === '16505551234');
    expect(reply).toMatchObject({ phoneNumberId: '106540352242922', authorization: `Bearer ${API_TOKEN}` });
    expect(reply?.body).toMatchObject({ messaging_product: 'whatsapp', type: 'text' });
  });

  it('stores three messages from a payload with two entries (types text, image, location)', async () => {
    const res = await postWebhook(gateway, await fixture('two-entries-three-messages'));
    expect(res.status).toBe(200);
    const { rows } = await db.pool.query<{ type: string; text: string | null }>(
      "SELECT type, text FROM messaging_messages WHERE provider_message_id LIKE 'wamid.two-entries.%' ORDER BY provider_message_id",
    );
    expect(rows).toEqual([
      { type: 'text', text: 'halo' },
      { type: 'image', text: 'brosur' },
      { type: 'location', text: null },
    ]);
    expect(
      await count(
        "SELECT count(DISTINCT conversation_id) AS n FROM messaging_messages WHERE provider_message_id LIKE 'wamid.two-entries.%'",
      ),
    ).toBe(2);
  });

  it('handles a username-only user (from_user_id, no phone): stored, and answered by user id', async () => {
    expect((await postWebhook(gateway, await fixture('username-user'))).status).toBe(200);
    const { rows } = await db.pool.query(
      `SELECT c.contact_phone, c.contact_user_id, c.contact_key FROM messaging_messages m
         JOIN messaging_conversations c ON c.id = m.conversation_id WHERE m.provider_message_id LIKE 'wamid.HBgNVVMu%'`,
    );
    expect(rows).toEqual([
      {
        contact_phone: null,
        contact_user_id: 'US.13491208655302741918',
        contact_key: 'user:US.13491208655302741918',
      },
    ]);
    await expect.poll(() => provider.sent.some((s) => s.body.to === 'US.13491208655302741918')).toBe(true);
  });

  it('applies the public sample status update to the outbound message it names', async () => {
    const from = '6281299990001';
    await postWebhook(gateway, textMessage({ from, text: 'halo' }));
    await expect.poll(() => provider.sent.filter((s) => s.body.to === from).length).toBe(1);
    const { rows } = await db.pool.query<{ provider_message_id: string }>(
      `SELECT m.provider_message_id FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
      [from],
    );
    const outboundId = rows[0]?.provider_message_id as string;
    await expect
      .poll(async () =>
        count(
          "SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id = $1 AND delivery_status = 'sent'",
          [outboundId],
        ),
      )
      .toBe(1);
    const status = await fixture('status-update');
    const change = (
      status.entry as Array<{ changes: Array<{ value: { statuses: Array<{ id: string }> } }> }>
    )[0]?.changes[0]?.value.statuses[0] as { id: string };
    change.id = outboundId;
    expect((await postWebhook(gateway, status)).status).toBe(200);
    expect(
      await count(
        'SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id = $1 AND delivery_status = $2',
        [outboundId, 'delivered'],
      ),
    ).toBe(1);
    // A late "sent" does not move it back.
    (change as { status?: string }).status = 'sent';
    await postWebhook(gateway, status);
    expect(
      await count(
        'SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id = $1 AND delivery_status = $2',
        [outboundId, 'delivered'],
      ),
    ).toBe(1);
  });

  it.each([
    ['another object', { object: 'page', entry: [] }],
    ['entry not a list', { object: 'whatsapp_business_account', entry: {} }],
    [
      'messages not a list',
      (() => {
        const p = textMessage({ from: '6281200000009', text: 'x' }) as {
          entry: Array<{ changes: Array<{ value: { messages: unknown } }> }>;
        };
        (p.entry[0]?.changes[0]?.value as { messages: unknown }).messages = { id: 'wamid.not-a-list' };
        return p;
      })(),
    ],
    ['broken JSON', '{"object": "whatsapp_business_account", "entry": ['],
  ])('refuses %s with 400 problem+json and stores nothing', async (_name, payload) => {
    const before = await count('SELECT count(*) AS n FROM messaging_messages');
    const conversations = await count('SELECT count(*) AS n FROM messaging_conversations');
    const res = await postWebhook(gateway, payload);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await count('SELECT count(*) AS n FROM messaging_messages')).toBe(before);
    expect(await count('SELECT count(*) AS n FROM messaging_conversations')).toBe(conversations);
  });

  it.each([
    ['without an id', (m: Record<string, unknown>) => delete m.id, 'id: '],
    ['without a sender', (m: Record<string, unknown>) => delete m.from, 'needs from or from_user_id'],
    [
      'with a timestamp that is not unix seconds',
      (m: Record<string, unknown>) => (m.timestamp = 'yesterday'),
      'timestamp: must be unix seconds',
    ],
  ])(
    'stores the valid messages of a notification and rejects the one %s, reporting it (200: the provider must not retry)',
    async (name, spoil, reason) => {
      const tag = name.replaceAll(' ', '-');
      const payload = textMessage({
        from: '6281200000010',
        text: 'halo',
        id: `wamid.partial.${tag}.good`,
      }) as {
        entry: Array<{ changes: Array<{ value: { messages: Array<Record<string, unknown>> } }> }>;
      };
      const bad: Record<string, unknown> = {
        id: `wamid.partial.${tag}.bad`,
        from: '6281200000010',
        timestamp: '1700000000',
        type: 'text',
        text: { body: 'x' },
      };
      spoil(bad);
      payload.entry[0]?.changes[0]?.value.messages.push(bad);
      const res = await postWebhook(gateway, payload);
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { rejected: Array<{ path: string; reason: string }> };
      expect(answer).toMatchObject({ received: 2, stored: 1, statuses: 0, rejectedCount: 1 });
      expect(answer.rejected).toEqual([
        {
          path: 'entry.0.changes.0.value.messages.1',
          id: typeof bad.id === 'string' ? bad.id : null,
          reason: expect.stringContaining(reason) as unknown,
        },
      ]);
      const stored = await db.pool.query<{ provider_message_id: string }>(
        'SELECT provider_message_id FROM messaging_messages WHERE provider_message_id LIKE $1',
        [`wamid.partial.${tag}.%`],
      );
      expect(stored.rows).toEqual([{ provider_message_id: `wamid.partial.${tag}.good` }]);
    },
  );

  it('stores and processes a duplicated delivery once, sequentially and 10 times in parallel, with one reply', async () => {
    const from = '6281277770001';
    const payload = textMessage({ from, text: 'halo', id: 'wamid.duplicate.1' });
    for (let i = 0; i < 3; i++) expect((await postWebhook(gateway, payload)).status).toBe(200);
    const parallel = textMessage({ from, text: 'halo lagi', id: 'wamid.duplicate.2' });
    const statuses = await Promise.all(
      Array.from({ length: 10 }, () => postWebhook(gateway, parallel).then((r) => r.status)),
    );
    expect(statuses).toEqual(Array(10).fill(200));
    expect(
      await count(
        "SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id LIKE 'wamid.duplicate.%'",
      ),
    ).toBe(2);
    await expect.poll(() => provider.sent.filter((s) => s.body.to === from).length).toBe(2);
    expect(
      await count(
        `SELECT count(*) AS n FROM messaging_messages WHERE direction = 'outbound' AND in_reply_to IN
           (SELECT id FROM messaging_messages WHERE provider_message_id LIKE 'wamid.duplicate.%')`,
      ),
    ).toBe(2);
    expect(
      await count(
        "SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id LIKE 'wamid.duplicate.%' AND attempts = 1 AND processing_status = 'processed'",
      ),
    ).toBe(2);
  });
});

describe('X-Hub-Signature-256 (WEBHOOK_APP_SECRET set)', () => {
  it('accepts a correct signature over the raw bytes and refuses a missing or wrong one, storing nothing', async () => {
    const secret = 'app-secret-for-tests';
    const signed = await startMessagingGateway({
      databaseUrl: db.url,
      provider,
      env: { WEBHOOK_APP_SECRET: secret },
    });
    try {
      const body = JSON.stringify(textMessage({ from: '6281255550001', text: 'halo', id: 'wamid.signed.1' }));
      const unsigned = await postWebhook(signed, body);
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toMatchObject({ code: 'messaging.webhook.signature_invalid' });
      const wrong = await postWebhook(signed, body, { 'x-hub-signature-256': hubSignature('other', body) });
      expect(wrong.status).toBe(401);
      expect(
        await count(
          "SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id = 'wamid.signed.1'",
        ),
      ).toBe(0);
      const ok = await postWebhook(signed, body, { 'x-hub-signature-256': hubSignature(secret, body) });
      expect(ok.status).toBe(200);
      expect(
        await count(
          "SELECT count(*) AS n FROM messaging_messages WHERE provider_message_id = 'wamid.signed.1'",
        ),
      ).toBe(1);
    } finally {
      await signed.close();
    }
  });
});

describe('identity', () => {
  it('keys a conversation by phone_number_id and sender', async () => {
    await postWebhook(gateway, textMessage({ from: '6281233330001', text: 'a' }));
    await postWebhook(gateway, textMessage({ from: '6281233330001', text: 'b' }));
    await postWebhook(
      gateway,
      textMessage({ from: '6281233330001', text: 'c', phoneNumberId: 'another-number' }),
    );
    expect(
      await count("SELECT count(*) AS n FROM messaging_conversations WHERE contact_phone = '6281233330001'"),
    ).toBe(2);
  });
});
