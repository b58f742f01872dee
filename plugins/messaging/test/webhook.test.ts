/**
 * The provider webhook (plugins/messaging/README.md, "How a message flows", points 1 and 2): public sample
 * payloads of the WhatsApp Cloud API, every entry and message stored once before the answer, status updates
 * applied, duplicates changing nothing, a conversation per business number and sender. Who may use it, and
 * what it does with a body it must not trust, is in webhook.security.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  API_TOKEN,
  postWebhook,
  startMessagingGateway,
  startProviderStub,
  textMessage,
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
