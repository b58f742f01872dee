/**
 * Ids are drawn at INSERT, not at COMMIT, so transactions commit out of id order (README, "Delivery
 * guarantees"; ADR 0009, "Holes"). Parallel transactions against the real database: a later id committed first
 * waits for the earlier one, a rolled-back id is skipped once its transaction has ended, and a long transaction
 * that writes no event holds nothing back.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import {
  dashboardToken,
  messagingRows,
  RealtimeClient,
  realtimeEnv,
} from '../../../test/support/realtime.ts';

let db: TestDatabase;
let gateway: TestGateway;
const open: pg.Client[] = [];
const clients: RealtimeClient[] = [];

async function transaction(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  open.push(client);
  await client.query('BEGIN');
  return client;
}

const notified = async () =>
  ((await (await fetch(`${gateway.url}/api/v1/health/realtime`)).json()) as { lastNotifyAt: string | null })
    .lastNotifyAt;

/**
 * The messages among what a client received. A conversation's own `conversation.created` may arrive too:
 * committed before the client joined, it is still delivered live when a loaded reader reaches it afterwards.
 */
const messages = (all: RealtimeClient['events']) => all.filter((event) => event.type === 'message.created');

async function watcher(conversation: string): Promise<RealtimeClient> {
  const client = new RealtimeClient(gateway.url, {
    token: await dashboardToken({ sub: 'admin-order', roles: ['*'] }),
    rooms: [`conversation:${conversation}`],
  });
  clients.push(client);
  await client.ready();
  return client;
}

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('enforce') });
});
// A stalled feed and a lost socket look alike from the test: a failure prints the feed's side too.
afterEach(async (context) => {
  if (context.task.result?.state !== 'fail') return;
  const health = (await (await fetch(`${gateway.url}/api/v1/health/realtime`)).json()) as unknown;
  const { rows } = await db.pool.query<{ id: string; type: string }>(
    'SELECT id, type FROM realtime_events ORDER BY id DESC LIMIT 10',
  );
  const warnings = gateway.logs().filter((line) => Number(line.level) >= 40);
  console.error('realtime feed at the failure', JSON.stringify({ health, newest: rows, warnings }, null, 1));
});
afterAll(async () => {
  for (const client of clients) client.close();
  for (const client of open) await client.end().catch(() => undefined);
  await gateway?.close();
  await db?.drop();
});

describe('transactions committing out of id order', () => {
  it('a later id committed first is delivered after the earlier one, both once', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    const client = await watcher(conversation);
    const slow = await transaction();
    await messagingRows.message(slow, conversation, 'first id, committed last');
    const before = await notified();
    await messagingRows.message(db.pool, conversation, 'second id, committed first');
    await expect.poll(notified).not.toBe(before);
    await slow.query('COMMIT');
    const events = messages(await client.received((all) => messages(all).length === 2, 'both events'));
    expect(events.map((event) => event.payload.text)).toEqual([
      'first id, committed last',
      'second id, committed first',
    ]);
    expect(events[0]?.id).toBeLessThan(events[1]?.id as number);
  });

  it('an id whose transaction rolled back is skipped once that transaction has ended', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    const client = await watcher(conversation);
    const doomed = await transaction();
    await messagingRows.message(doomed, conversation, 'never committed');
    await messagingRows.message(db.pool, conversation, 'committed after the hole');
    await doomed.query('ROLLBACK');
    await messagingRows.message(db.pool, conversation, 'and the next one');
    const events = messages(
      await client.received((all) => messages(all).length === 2, 'the two committed events'),
    );
    expect(events.map((event) => event.payload.text)).toEqual([
      'committed after the hole',
      'and the next one',
    ]);
  });

  it('many writers in parallel, some rolling back: every committed event once, in id order', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    const client = await watcher(conversation);
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        const connection = new pg.Client({ connectionString: db.url });
        await connection.connect();
        try {
          for (let i = 0; i < 25; i++) {
            await connection.query('BEGIN');
            await messagingRows.message(connection, conversation, `w${writer}-${i}`);
            await connection.query(i % 5 === 4 ? 'ROLLBACK' : 'COMMIT');
          }
        } finally {
          await connection.end();
        }
      }),
    );
    const { rows } = await db.pool.query<{ id: string }>(
      "SELECT id FROM realtime_events WHERE rooms @> ARRAY[$1] AND type = 'message.created' ORDER BY id",
      [`conversation:${conversation}`],
    );
    const expected = rows.map((row) => Number(row.id));
    expect(expected.length).toBe(8 * 20);
    const events = await client.received(
      (all) => messages(all).length >= expected.length,
      'every committed event',
    );
    expect(messages(events).map((event) => event.id)).toEqual(expected);
  });

  it('a long transaction that writes no event holds back nothing', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    const client = await watcher(conversation);
    const unrelated = await transaction();
    // It has a transaction id (it wrote), so a wait on the snapshot's xmin would stall behind it.
    await unrelated.query(
      "INSERT INTO messaging_global_recipients (user_id, created_at) VALUES ('someone', now())",
    );
    const doomed = await transaction();
    await messagingRows.message(doomed, conversation, 'rolled back');
    await messagingRows.message(db.pool, conversation, 'after a hole');
    await doomed.query('ROLLBACK');
    const events = await client.received(
      (all) => all.some((event) => event.type === 'message.created'),
      'the committed message',
      10_000,
    );
    expect(events.filter((event) => event.type === 'message.created').map((e) => e.payload.text)).toEqual([
      'after a hole',
    ]);
    await unrelated.query('ROLLBACK');
  });
});
