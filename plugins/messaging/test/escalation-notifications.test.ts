/**
 * Escalation notification dedup (plugins/messaging/README.md, "How a message flows", point 5): concurrent
 * escalations for the same (user, event_key) within 30 seconds persist exactly one row, enforced by the
 * database. Truly parallel inserts, each on its own connection, against the real schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationStore } from '../src/store/notification-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';

let db: TestDatabase;
let conversationId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const cluster = await db.pool.query<{ id: string }>(
    "INSERT INTO messaging_clusters (name, phone_number_id, created_at) VALUES ('Admissions', '1065', now()) RETURNING id",
  );
  const clusterId = cluster.rows[0]?.id;
  await db.pool.query(
    "INSERT INTO messaging_cluster_members (cluster_id, user_id) VALUES ($1, 'agent-1'), ($1, 'agent-2')",
    [clusterId],
  );
  await db.pool.query(
    "INSERT INTO messaging_global_recipients (user_id, created_at) VALUES ('head-1', now())",
  );
  const conversation = await db.pool.query<{ id: string }>(
    `INSERT INTO messaging_conversations (phone_number_id, contact_key, contact_phone, cluster_id, capture, created_at, updated_at)
     VALUES ('1065', 'wa:6281200000001', '6281200000001', $1, '{}', now(), now()) RETURNING id`,
    [clusterId],
  );
  conversationId = conversation.rows[0]?.id as string;
});
afterAll(async () => {
  await db?.drop();
});

const rows = async (eventKey: string) =>
  (
    await db.pool.query<{ user_id: string; created_at: Date }>(
      'SELECT user_id, created_at FROM messaging_notifications WHERE event_key = $1 ORDER BY user_id, created_at',
      [eventKey],
    )
  ).rows;

/** One escalation, in its own transaction on its own connection, as the queue's workers would run it. */
async function escalate(eventKey: string, at: Date, scopes: Array<'cluster' | 'global'> = ['cluster']) {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const notified = await notificationStore.notify(client, {
      conversationId,
      scopes,
      eventKey,
      kind: 'escalation.ask_human',
      payload: {},
      at,
    });
    await client.query('COMMIT');
    return notified;
  } finally {
    client.release();
  }
}

describe('notification dedup, 30 s per (user, event_key)', () => {
  it('keeps exactly one row per user from 10 concurrent escalations; another 31 s later adds a second', async () => {
    const key = `ask_human:${conversationId}`;
    const t0 = new Date('2026-11-21T08:00:00.000Z');
    // Ten firings within a few milliseconds of each other, all at once.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => escalate(key, new Date(t0.getTime() + i * 5))),
    );
    expect(results.flat().sort()).toEqual(['agent-1', 'agent-2']);
    expect((await rows(key)).map((r) => r.user_id)).toEqual(['agent-1', 'agent-2']);

    // 29 s later: still inside the window of the first row.
    expect(await escalate(key, new Date(t0.getTime() + 29_000))).toEqual([]);
    // 31 s later: a second row for each user.
    expect((await escalate(key, new Date(t0.getTime() + 31_000))).sort()).toEqual(['agent-1', 'agent-2']);
    expect((await rows(key)).map((r) => r.user_id)).toEqual(['agent-1', 'agent-1', 'agent-2', 'agent-2']);
  });

  it('dedups per user and per key: other keys and the global recipients are separate', async () => {
    const at = new Date('2026-11-21T09:00:00.000Z');
    await Promise.all([
      escalate(`lead_captured:${conversationId}`, at, ['cluster', 'global']),
      escalate(`lead_captured:${conversationId}`, at, ['cluster', 'global']),
      escalate(`bot_stuck:${conversationId}`, at),
    ]);
    expect((await rows(`lead_captured:${conversationId}`)).map((r) => r.user_id)).toEqual([
      'agent-1',
      'agent-2',
      'head-1',
    ]);
    expect((await rows(`bot_stuck:${conversationId}`)).map((r) => r.user_id)).toEqual(['agent-1', 'agent-2']);
  });
});
