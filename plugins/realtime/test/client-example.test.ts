/**
 * The client example of the README (docs/examples/realtime-client.ts), run as written against the gateway: it
 * receives events live, and after the gateway restarts it reconnects on its own and is replayed what was
 * committed meanwhile, without gaps or duplicates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRealtime, type RealtimeEvent } from '../../../docs/examples/realtime-client.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { freePort } from '../../../test/support/process.ts';
import { dashboardToken, messagingRows, realtimeEnv } from '../../../test/support/realtime.ts';

let db: TestDatabase;
let gateway: TestGateway;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  env = realtimeEnv('enforce', { PORT: String(await freePort()) });
  gateway = await startTestGateway({ databaseUrl: db.url, env });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('docs/examples/realtime-client.ts', () => {
  it('gets events live, and everything committed while the gateway restarted once it is back', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-example']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const received: RealtimeEvent[] = [];
    const resyncs: string[] = [];
    const client = connectRealtime({
      url: gateway.url,
      token: () => dashboardToken({ sub: 'agent-example', roles: ['agent'] }),
      rooms: [`cluster:${cluster}`],
      onEvent: (event) => received.push(event),
      onResync: (reason) => void resyncs.push(reason),
    });
    try {
      await expect.poll(() => client.lastEventId() !== undefined, { timeout: 10_000 }).toBe(true);
      await messagingRows.message(db.pool, conversation, 'one');
      await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);

      await gateway.close();
      await expect.poll(() => client.socket.connected).toBe(false);
      await messagingRows.message(db.pool, conversation, 'two');
      await messagingRows.message(db.pool, conversation, 'three');
      gateway = await startTestGateway({ databaseUrl: db.url, env });
      await messagingRows.message(db.pool, conversation, 'four');
      await expect.poll(() => received.length, { timeout: 20_000 }).toBe(4);
      expect(received.map((event) => event.payload.text)).toEqual(['one', 'two', 'three', 'four']);
      expect(resyncs).toEqual([]);
    } finally {
      client.socket.disconnect();
    }
  });
});
