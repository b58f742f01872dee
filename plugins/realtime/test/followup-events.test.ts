/**
 * The follow-up queue's events (README, "Events", "Follow-ups"): a follow-up scheduled and its status changing
 * reach a socket in its conversation's room, with the payload the trigger builds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { EVENT_TYPES } from '../src/domain/event-schemas.ts';
import {
  dashboardToken,
  messagingRows,
  RealtimeClient,
  realtimeEnv,
} from '../../../test/support/realtime.ts';

let db: TestDatabase;
let gateway: TestGateway;
const clients: RealtimeClient[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('enforce') });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await gateway?.close();
  await db?.drop();
});

describe('followup events', () => {
  it('a follow-up scheduled, then cancelled, reaches its conversation’s room', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-f']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const other = await messagingRows.conversation(db.pool, cluster);
    const token = await dashboardToken({ sub: 'agent-f', roles: ['agent'] });
    const watcher = new RealtimeClient(gateway.url, { token, rooms: [`conversation:${conversation}`] });
    clients.push(watcher);
    await watcher.ready();

    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO messaging_follow_ups (conversation_id, manual, basis_at, due_at, text, created_at, updated_at)
       VALUES ($1, true, now(), '2030-01-01T00:00:00Z', 'Halo?', now(), now()) RETURNING id`,
      [conversation],
    );
    const id = rows[0]?.id as string;
    // Another conversation's follow-up does not reach this room.
    await db.pool.query(
      `INSERT INTO messaging_follow_ups (conversation_id, manual, basis_at, due_at, text, created_at, updated_at)
       VALUES ($1, true, now(), now(), 'x', now(), now())`,
      [other],
    );
    await db.pool.query(
      "UPDATE messaging_follow_ups SET status = 'cancelled', updated_at = now() WHERE id = $1",
      [id],
    );

    const events = await watcher.received(
      (all) => all.filter((e) => e.type.startsWith('followup.')).length >= 2,
      'two followup events',
    );
    const followUps = events.filter((e) => e.type.startsWith('followup.'));
    expect(followUps.map((e) => e.type)).toEqual(['followup.scheduled', 'followup.updated']);
    for (const event of followUps) {
      expect(event.rooms).toEqual([`conversation:${conversation}`, `cluster:${cluster}`]);
      expect(() => EVENT_TYPES[event.type as 'followup.updated'].payload.parse(event.payload)).not.toThrow();
    }
    expect(followUps[0]?.payload).toEqual({
      followupId: id,
      conversationId: conversation,
      ruleId: null,
      status: 'pending',
      dueAt: '2030-01-01T00:00:00.000Z',
    });
    expect(followUps[1]?.payload).toMatchObject({ followupId: id, status: 'cancelled' });
  });
});
