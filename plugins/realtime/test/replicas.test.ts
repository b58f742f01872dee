/**
 * Replicas (README, "Delivery guarantees"): each gateway process listens itself and delivers to its own
 * sockets, with no adapter between them. An event committed through either process (the provider webhook
 * here) reaches the clients of both, in the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { endsWithTest, freePort, processEnv, spawnGateway } from '../../../test/support/process.ts';
import { textMessage, PHONE_NUMBER_ID } from '../../../test/support/messaging.ts';
import { dashboardToken, RealtimeClient, realtimeEnv } from '../../../test/support/realtime.ts';

let db: TestDatabase;
let inProcess: TestGateway;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  inProcess = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('disabled') });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await inProcess?.close();
  await db?.drop();
});

describe('two gateway processes on one database', () => {
  it('an event committed through either reaches the clients of both, in the same order', async () => {
    const port = await freePort();
    const other = endsWithTest(
      spawnGateway({
        args: ['serve'],
        env: processEnv({
          ...realtimeEnv('disabled'),
          DATABASE_URL: db.url,
          PORT: String(port),
          LOG_LEVEL: 'info',
        }),
      }),
    );
    await other.waitForOutput(/listening/i);
    const otherUrl = `http://127.0.0.1:${port}`;
    // The conversations exist already (as after an earlier message); the webhook adds messages to them.
    const senders = ['6281200000001', '6281200000002', '6281200000003', '6281200000004'];
    const rooms: string[] = [];
    for (const from of senders) {
      const { rows } = await db.pool.query<{ id: string }>(
        `INSERT INTO messaging_conversations (phone_number_id, contact_key, contact_phone, capture, created_at, updated_at)
         VALUES ($1, $2, $3, '{"state":"idle"}', now(), now()) RETURNING id`,
        [PHONE_NUMBER_ID, `wa:${from}`, from],
      );
      rooms.push(`conversation:${rows[0]?.id}`);
    }
    const token = await dashboardToken({ sub: 'admin-r', roles: ['*'] });
    const onEach = [inProcess.url, otherUrl].map((url) => new RealtimeClient(url, { token, rooms }));
    clients.push(...onEach);
    for (const client of onEach) await client.ready();

    for (const [i, from] of senders.entries()) {
      const url = i % 2 === 0 ? inProcess.url : otherUrl;
      const res = await fetch(`${url}/webhook/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(textMessage({ from, id: `wamid.replicas-${i}`, text: 'halo' })),
      });
      expect(res.status).toBe(200);
    }
    const created = async () =>
      (
        await db.pool.query<{ id: string }>(
          "SELECT id FROM realtime_events WHERE type = 'message.created' AND payload->>'direction' = 'inbound' ORDER BY id",
        )
      ).rows.map((row) => Number(row.id));
    await expect.poll(async () => (await created()).length).toBe(4);
    const expected = await created();
    for (const client of onEach) {
      const inbound = (all: typeof client.events) =>
        all.filter((event) => event.type === 'message.created' && event.payload.direction === 'inbound');
      const events = await client.received((all) => inbound(all).length >= 4, 'four inbound messages');
      expect(inbound(events).map((event) => event.id)).toEqual(expected);
    }
  });
});
