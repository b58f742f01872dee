/**
 * Who may use the provider webhook, and what a body it must not trust does: the subscription challenge
 * answers only the configured verify token; a body that is not a notification is refused with nothing
 * stored, and a malformed message is rejected alone (plugins/messaging/README.md, "Bad bytes in a
 * notification"); with WEBHOOK_APP_SECRET set, only a body signed with it (X-Hub-Signature-256) is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubSignature } from '../src/domain/hub-signature.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
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
