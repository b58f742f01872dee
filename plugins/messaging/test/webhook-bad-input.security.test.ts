/**
 * Bad bytes and bad fields in webhook notifications (plugins/messaging/README.md, "Bad bytes in a
 * notification"): never a 500. A message or status update whose identifiers are not clean text is rejected
 * alone and reported (200, logged, counted), its neighbours stored; free text with NUL or unpaired
 * surrogates is stored with U+FFFD in their place; the answer counts the rows this request really stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  PHONE_NUMBER_ID,
  postWebhook,
  startMessagingGateway,
  startProviderStub,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { metricSamples } from '../../../test/support/metric-samples.ts';

let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;

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

interface Answer {
  received: number;
  stored: number;
  statuses: number;
  rejectedCount: number;
  rejected: Array<{ path: string; id: string | null; reason: string }>;
}

type Notification = {
  entry: Array<{
    changes: Array<{
      value: {
        metadata: Record<string, unknown>;
        contacts: Array<Record<string, unknown>>;
        messages: Array<Record<string, unknown>>;
        statuses?: Array<Record<string, unknown>>;
      };
    }>;
  }>;
};

let sender = 0;
/** A notification from a new sender with a valid first message (`<tag>.good`) and `extra` after it. */
function notification(tag: string, ...extra: Array<Record<string, unknown>>): Notification {
  sender++;
  const payload = textMessage({
    from: `62813${String(sender).padStart(8, '0')}`,
    text: 'halo',
    id: `wamid.bad-input.${tag}.good`,
  }) as Notification;
  payload.entry[0]?.changes[0]?.value.messages.push(...extra);
  return payload;
}

function message(id: unknown, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, from: '6281399990000', timestamp: '1700000000', type: 'text', text: { body: 'x' }, ...fields };
}

async function post(payload: unknown): Promise<Answer> {
  const res = await postWebhook(gateway, payload);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Answer;
}

async function storedIds(tag: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    'SELECT provider_message_id AS id FROM messaging_messages WHERE provider_message_id LIKE $1 ORDER BY 1',
    [`wamid.bad-input.${tag}.%`],
  );
  return rows.map((row) => row.id);
}

async function rejectedTotal(kind: 'message' | 'status'): Promise<number> {
  const samples = await metricSamples(gateway.metricsUrl, 'gatehouse_messaging_webhook_rejected_total');
  return samples[`kind="${kind}"`] ?? 0;
}

describe('a message with bad identifiers is rejected alone', () => {
  it.each([
    [
      'an id with a NUL',
      message('wamid.bad-input.nul-id.bad\u0000'),
      'id: must not contain control characters',
    ],
    [
      'an id with an unpaired surrogate',
      message('wamid.bad-input.lone-id.bad\ud800'),
      'id: must not contain',
    ],
    [
      'an id with another control character',
      message('wamid.bad-input.bell-id.bad\u0007'),
      'id: must not contain',
    ],
    ['an id that is not a string', message(42), 'id: Invalid input'],
    [
      'a from_user_id with a NUL',
      message('wamid.bad-input.user.bad', { from: undefined, from_user_id: 'US.1\u0000' }),
      'from_user_id: must not contain',
    ],
    [
      'a from that is not digits',
      message('wamid.bad-input.from.bad', { from: '62\u00008' }),
      'from: must be digits',
    ],
    [
      'a type with a NUL',
      message('wamid.bad-input.type.bad', { type: 'te\u0000xt' }),
      'type: must not contain',
    ],
    [
      'a timestamp that is not a string',
      message('wamid.bad-input.ts.bad', { timestamp: 1700000000 }),
      'timestamp: ',
    ],
    [
      'a text body that is not a string',
      message('wamid.bad-input.body.bad', { text: { body: 1 } }),
      'text.body: ',
    ],
    ['a message that is not an object', 'wamid.bad-input.string.bad', 'item: '],
  ])(
    '%s: 200, the other message stored, the bad one reported, logged and counted',
    async (_name, bad, reason) => {
      const tag = String(sender + 1);
      const before = await rejectedTotal('message');
      const answer = await post(notification(tag, bad as Record<string, unknown>));
      expect(answer).toMatchObject({ received: 2, stored: 1, statuses: 0, rejectedCount: 1 });
      expect(answer.rejected).toEqual([
        {
          path: 'entry.0.changes.0.value.messages.1',
          id: expect.toSatisfy(
            (id: unknown) => id === null || (typeof id === 'string' && id.isWellFormed()),
          ) as unknown,
          reason: expect.stringContaining(reason) as unknown,
        },
      ]);
      expect(answer.rejected[0]?.id ?? '').not.toContain('\u0000');
      expect(await storedIds(tag)).toEqual([`wamid.bad-input.${tag}.good`]);
      expect(await rejectedTotal('message')).toBe(before + 1);
      expect(gateway.logs().some((l) => l.msg === 'messaging: webhook items rejected')).toBe(true);
    },
  );

  it('rejects every message of a change whose phone_number_id is not clean, and stores the other changes', async () => {
    const payload = notification('pnid');
    const bad = structuredClone(payload.entry[0]?.changes[0]) as Notification['entry'][0]['changes'][0];
    bad.value.metadata = { phone_number_id: `${PHONE_NUMBER_ID}\u0000` };
    bad.value.messages = [message('wamid.bad-input.pnid.bad1'), message('wamid.bad-input.pnid.bad2')];
    payload.entry[0]?.changes.push(bad);
    const answer = await post(payload);
    expect(answer).toMatchObject({ received: 3, stored: 1, rejectedCount: 2 });
    expect(answer.rejected.map((r) => [r.path, r.reason])).toEqual([
      [
        'entry.0.changes.1.value.messages.0',
        expect.stringContaining('metadata.phone_number_id: must not contain'),
      ],
      [
        'entry.0.changes.1.value.messages.1',
        expect.stringContaining('metadata.phone_number_id: must not contain'),
      ],
    ]);
    expect(await storedIds('pnid')).toEqual(['wamid.bad-input.pnid.good']);
  });

  it('rejects a message nested deeper than 32 levels (its stored copy is made recursively)', async () => {
    let nested: unknown = 'bottom';
    for (let level = 0; level < 40; level++) nested = [nested];
    const answer = await post(notification('deep', message('wamid.bad-input.deep.bad', { extra: nested })));
    expect(answer).toMatchObject({ received: 2, stored: 1, rejectedCount: 1 });
    expect(answer.rejected[0]).toMatchObject({
      id: 'wamid.bad-input.deep.bad',
      reason: 'nested deeper than 32 levels',
    });
    expect(await storedIds('deep')).toEqual(['wamid.bad-input.deep.good']);
  });
});

describe('free text with bad bytes is stored, made storable', () => {
  it('replaces NUL and unpaired surrogates with U+FFFD in the text, the contact name and the raw message, keys included', async () => {
    const payload = notification('text');
    const change = payload.entry[0]?.changes[0]?.value as Notification['entry'][0]['changes'][0]['value'];
    const first = change.messages[0] as Record<string, unknown>;
    first.text = { body: 'nama saya Budi\u0000 \ud800 Santoso' };
    first['key\u0000with\udc00'] = { note: 'v\u0000' };
    (change.contacts[0] as { profile: { name: string } }).profile.name = 'Bu\u0000di\ud83d';
    change.messages.push(
      message('wamid.bad-input.text.caption', { type: 'image', image: { caption: 'brosur\u0000\ud800' } }),
      message('wamid.bad-input.text.title', {
        type: 'interactive',
        interactive: { type: 'button_reply', button_reply: { id: 'b\u0000', title: 'Ya\u0000' } },
      }),
    );
    const answer = await post(payload);
    expect(answer).toMatchObject({ received: 3, stored: 3, rejectedCount: 0, rejected: [] });
    const { rows } = await db.pool.query<{ id: string; text: string; payload: Record<string, unknown> }>(
      `SELECT provider_message_id AS id, text, payload FROM messaging_messages
        WHERE provider_message_id LIKE 'wamid.bad-input.text.%' ORDER BY 1`,
    );
    expect(rows.map((r) => [r.id, r.text])).toEqual([
      ['wamid.bad-input.text.caption', 'brosur\ufffd\ufffd'],
      ['wamid.bad-input.text.good', 'nama saya Budi\ufffd \ufffd Santoso'],
      ['wamid.bad-input.text.title', 'Ya\ufffd'],
    ]);
    const good = rows.find((r) => r.id === 'wamid.bad-input.text.good')?.payload as {
      message: Record<string, unknown>;
      contact: { name: string };
    };
    expect(good.contact.name).toBe('Bu\ufffddi\ufffd');
    expect(good.message['key\ufffdwith\ufffd']).toEqual({ note: 'v\ufffd' });
    expect(good.message.text).toEqual({ body: 'nama saya Budi\ufffd \ufffd Santoso' });
    const conversation = await db.pool.query<{ contact_name: string }>(
      `SELECT c.contact_name FROM messaging_conversations c JOIN messaging_messages m ON m.conversation_id = c.id
        WHERE m.provider_message_id = 'wamid.bad-input.text.good'`,
    );
    expect(conversation.rows).toEqual([{ contact_name: 'Bu\ufffddi\ufffd' }]);
    // And it is processed like any other message.
    await expect
      .poll(() =>
        db.pool
          .query(
            "SELECT 1 FROM messaging_messages WHERE provider_message_id LIKE 'wamid.bad-input.text.%' AND processing_status = 'processed'",
          )
          .then((r) => r.rowCount),
      )
      .toBe(3);
  });
});

describe('status updates with bad fields', () => {
  it('are rejected alone; the valid ones applied, a NUL in an error title stored as U+FFFD', async () => {
    // An outbound message to update: the reply to a message, once the send API accepted it.
    const from = '6281388880001';
    await post(textMessage({ from, text: 'halo', id: 'wamid.bad-input.status.in' }));
    await expect.poll(() => provider.sent.filter((s) => s.body.to === from).length).toBe(1);
    const outbound = async () =>
      (
        await db.pool.query<{ id: string | null; status: string; error: string | null }>(
          `SELECT m.provider_message_id AS id, m.delivery_status AS status, m.delivery_error AS error
             FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
            WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
          [from],
        )
      ).rows[0];
    await expect.poll(async () => (await outbound())?.status).toBe('sent');
    const id = (await outbound())?.id as string;

    const payload = notification('status');
    const value = payload.entry[0]?.changes[0]?.value as Notification['entry'][0]['changes'][0]['value'];
    value.messages = [];
    value.statuses = [
      { id: `${id}\u0000`, status: 'delivered', timestamp: '1700000000' },
      { id, status: 'read\ud800', timestamp: '1700000000' },
      { id, status: 'read', timestamp: 'later' },
      { id, status: 'failed', timestamp: '1700000000', errors: [{ code: 1, title: 'no\u0000route' }] },
    ];
    const before = await rejectedTotal('status');
    const answer = await post(payload);
    expect(answer).toMatchObject({ received: 0, stored: 0, statuses: 4, rejectedCount: 3 });
    expect(answer.rejected.map((r) => r.path)).toEqual([
      'entry.0.changes.0.value.statuses.0',
      'entry.0.changes.0.value.statuses.1',
      'entry.0.changes.0.value.statuses.2',
    ]);
    expect(await rejectedTotal('status')).toBe(before + 3);
    expect(await outbound()).toEqual({ id, status: 'failed', error: 'no\ufffdroute' });
  });
});

describe('the stored count', () => {
  it('counts the rows this request stored: one id twice is one, a redelivery is none', async () => {
    const payload = notification('twice', message('wamid.bad-input.twice.good'));
    expect(await post(payload)).toMatchObject({ received: 2, stored: 1, rejectedCount: 0 });
    expect(await storedIds('twice')).toEqual(['wamid.bad-input.twice.good']);
    expect(await post(payload)).toMatchObject({ received: 2, stored: 0 });
  });

  it('counts each new row once across parallel deliveries of one notification', async () => {
    const payload = notification('parallel', message('wamid.bad-input.parallel.other'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(payload)));
    expect(answers.reduce((sum, a) => sum + a.stored, 0)).toBe(2);
    expect(await storedIds('parallel')).toHaveLength(2);
  });
});
