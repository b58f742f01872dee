/**
 * Agent replies (plugins/messaging/README.md, "Staff API", "Agent inbox"; ADR 0010): through the outbox, in
 * the conversation's order after a bot reply still being sent, authored by the agent; with an
 * Idempotency-Key, a doubled or retried request creates and sends one message, however concurrent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  PHONE_NUMBER_ID,
  postWebhook,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let provider: ProviderStub;
let rina: StaffClient;
let dewi: StaffClient;
let cluster: string;

beforeAll(async () => {
  ({ db, provider, gateway, stop } = await startStaffApiHarness());
  cluster = await messagingRows.cluster(db.pool, ['agent-rina', 'agent-dewi']);
  // Conversations the webhook creates are routed to it.
  await db.pool.query('UPDATE messaging_clusters SET phone_number_id = $1 WHERE id = $2', [
    PHONE_NUMBER_ID,
    cluster,
  ]);
  rina = staffClient(gateway, agent('agent-rina'));
  dewi = staffClient(gateway, agent('agent-dewi'));
});
afterAll(async () => {
  provider?.releaseHeld();
  await stop?.();
});

interface Message {
  id: string;
  text: string;
  author: { kind: string; userId?: string };
  deliveryStatus: string;
}

/** A conversation of the cluster and its contact's number. */
async function newConversation(): Promise<{ id: string; phone: string }> {
  const id = await messagingRows.conversation(db.pool, cluster);
  const { rows } = await db.pool.query<{ contact_phone: string }>(
    'SELECT contact_phone FROM messaging_conversations WHERE id = $1',
    [id],
  );
  return { id, phone: rows[0]?.contact_phone as string };
}

const replyAs = (client: StaffClient, id: string, text: string, key?: string) =>
  client.post(`/api/v1/agent/conversations/${id}/replies`, {
    json: { text },
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });

const sentTo = (phone: string) =>
  provider.sent.filter((s) => s.body.to === phone).map((s) => s.body.text.body);

async function outbound(id: string) {
  const { rows } = await db.pool.query<{
    id: string;
    text: string;
    author_user_id: string | null;
    delivery_status: string;
  }>(
    `SELECT id, text, author_user_id, delivery_status FROM messaging_messages
      WHERE conversation_id = $1 AND direction = 'outbound' ORDER BY seq`,
    [id],
  );
  return rows;
}

describe('an agent reply', () => {
  it('is queued in the outbox as the agent’s message and sent', async () => {
    const { id, phone } = await newConversation();
    await db.pool.query('UPDATE messaging_conversations SET unread_count = 3 WHERE id = $1', [id]);
    const res = await replyAs(rina, id, 'Halo, saya Rina.');
    expect(res.status).toBe(201);
    const conversation = await rina.get(`/api/v1/agent/conversations/${id}`);
    expect(await conversation.json()).toMatchObject({
      unreadCount: 0,
      handler: 'agent',
      assignedTo: 'agent-rina',
    });
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const message = (await res.json()) as Message;
    expect(message).toMatchObject({
      text: 'Halo, saya Rina.',
      author: { kind: 'agent', userId: 'agent-rina' },
      deliveryStatus: 'pending',
    });
    await expect.poll(() => sentTo(phone)).toEqual(['Halo, saya Rina.']);
    await expect.poll(async () => (await outbound(id))[0]?.delivery_status).toBe('sent');
    expect(await outbound(id)).toMatchObject([{ id: message.id, author_user_id: 'agent-rina' }]);
  });

  it('is sent after the bot’s reply still in flight, in the conversation’s order', async () => {
    const from = '6281344440001';
    provider.holdNext(1);
    expect((await postWebhook(gateway, textMessage({ from, text: 'halo' }))).status).toBe(200);
    await expect.poll(() => provider.held()).toBe(1);
    const { rows } = await db.pool.query<{ id: string }>(
      'SELECT id FROM messaging_conversations WHERE contact_phone = $1',
      [from],
    );
    const id = rows[0]?.id as string;
    expect((await replyAs(rina, id, 'Rina di sini.')).status).toBe(201);
    expect((await outbound(id)).map((m) => m.delivery_status)).toEqual(['pending', 'pending']);

    provider.releaseHeld('accept');
    await expect
      .poll(async () => (await outbound(id)).map((m) => m.delivery_status))
      .toEqual(['sent', 'sent']);
    const [bot, mine] = await outbound(id);
    expect(bot?.author_user_id).toBeNull();
    expect(sentTo(from)).toEqual([bot?.text, 'Rina di sini.']);
    expect(mine?.author_user_id).toBe('agent-rina');
  });
});

describe('Idempotency-Key', () => {
  it('two concurrent requests with the same key make one message and one send', async () => {
    for (let round = 0; round < 5; round++) {
      const { id, phone } = await newConversation();
      const key = `double-click-${round}`;
      const [a, b] = await Promise.all([
        replyAs(rina, id, 'Sebentar ya.', key),
        replyAs(rina, id, 'Sebentar ya.', key),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      const replayed = a.status === 200 ? a : b;
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const [first, second] = (await Promise.all([a.json(), b.json()])) as Message[];
      expect(first?.id).toBe(second?.id);
      expect(await outbound(id)).toHaveLength(1);
      await expect.poll(async () => (await outbound(id))[0]?.delivery_status).toBe('sent');
      expect(sentTo(phone)).toEqual(['Sebentar ya.']);
    }
  });

  it('two concurrent requests with the same key on two conversations: one reply, the other refused', async () => {
    for (let round = 0; round < 5; round++) {
      const one = await newConversation();
      const two = await newConversation();
      const key = `crossed-${round}`;
      const answers = await Promise.all([
        replyAs(rina, one.id, 'Sebentar ya.', key),
        replyAs(rina, two.id, 'Sebentar ya.', key),
      ]);
      expect(answers.map((res) => res.status).sort()).toEqual([201, 422]);
      expect((await outbound(one.id)).length + (await outbound(two.id)).length).toBe(1);
    }
  });

  it('a retry later answers the same message, as it is now, and sends nothing', async () => {
    const { id, phone } = await newConversation();
    const first = (await (await replyAs(rina, id, 'Baik.', 'retry-1')).json()) as Message;
    await expect.poll(async () => (await outbound(id))[0]?.delivery_status).toBe('sent');
    const again = await replyAs(rina, id, 'Baik.', 'retry-1');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ id: first.id, deliveryStatus: 'sent' });
    expect(await outbound(id)).toHaveLength(1);
    expect(sentTo(phone)).toEqual(['Baik.']);
  });

  it('the same key for another text or another conversation is refused, and nothing is written', async () => {
    const { id } = await newConversation();
    const other = await newConversation();
    expect((await replyAs(rina, id, 'Satu.', 'reused-1')).status).toBe(201);
    for (const [conversation, text] of [
      [id, 'Dua.'],
      [other.id, 'Satu.'],
    ] as const) {
      const res = await replyAs(rina, conversation, text, 'reused-1');
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('messaging.idempotency_key.reused');
    }
    expect(await outbound(id)).toHaveLength(1);
    expect(await outbound(other.id)).toHaveLength(0);
  });

  it('keys belong to one staff member; a key is forgotten after 24 hours', async () => {
    const { id } = await newConversation();
    expect((await replyAs(rina, id, 'Dari Rina.', 'shared-key')).status).toBe(201);
    expect((await replyAs(dewi, id, 'Dari Rina.', 'shared-key')).status).toBe(201);
    expect(await outbound(id)).toHaveLength(2);

    await db.pool.query(
      "UPDATE messaging_reply_requests SET created_at = created_at - interval '24 hours 1 second' WHERE idempotency_key = 'shared-key'",
    );
    expect((await replyAs(rina, id, 'Lain kali.', 'shared-key')).status).toBe(201);
    expect(await outbound(id)).toHaveLength(3);
  });
});
