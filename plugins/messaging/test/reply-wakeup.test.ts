/**
 * A reply written while an earlier reply of its conversation is still being sent waits behind it (order
 * first) and is sent as soon as that one is recorded, not at the send loop's next poll. The loops here
 * poll once a minute, so only the wake-ups can send it within the test's time.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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

let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  gateway = await startMessagingGateway({
    databaseUrl: db.url,
    provider,
    clock,
    env: { MESSAGING_WORKER_INTERVAL_MS: '60000' },
  });
});
afterAll(async () => {
  provider?.releaseHeld();
  await gateway?.close();
  await provider?.close();
  await db?.drop();
});

async function outbound(from: string) {
  const { rows } = await db.pool.query<{ delivery_status: string; text: string }>(
    `SELECT m.delivery_status, m.text FROM messaging_messages m
       JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.direction = 'outbound' ORDER BY m.seq`,
    [from],
  );
  return rows;
}

it('sends a reply that waited behind its conversation’s reply in flight once that one is sent, without a poll', async () => {
  const from = '6281322220300';
  provider.holdNext(1);
  expect((await postWebhook(gateway, textMessage({ from, text: 'halo' }))).status).toBe(200);
  await expect.poll(() => provider.held()).toBe(1);

  // The second message's reply is written while the first reply is in flight: it is left to the claim,
  // which finds it behind a pending reply and leaves it.
  expect((await postWebhook(gateway, textMessage({ from, text: 'saya mau daftar' }))).status).toBe(200);
  await expect.poll(async () => (await outbound(from)).length).toBe(2);
  expect((await outbound(from)).map((reply) => reply.delivery_status)).toEqual(['pending', 'pending']);

  provider.releaseHeld('accept');
  await expect
    .poll(async () => (await outbound(from)).map((reply) => reply.delivery_status))
    .toEqual(['sent', 'sent']);
  expect(provider.sent.filter((s) => s.body.to === from).map((s) => s.body.text.body)).toEqual(
    (await outbound(from)).map((reply) => reply.text),
  );
});
