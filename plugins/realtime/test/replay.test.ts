/**
 * Replay (README, "Replay"): a client that comes back with the last id it saw gets every event it missed in
 * its rooms, in order, exactly once, before new ones, across a disconnect and across a gateway restart; a
 * client too far behind (pruned, too many, or an id this log never had) is told to resync instead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { freePort } from '../../../test/support/process.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { sign } from '../../../test/support/gate.ts';
import {
  dashboardToken,
  messagingRows,
  RealtimeClient,
  realtimeEnv,
} from '../../../test/support/realtime.ts';

let db: TestDatabase;
let gateway: TestGateway;
const clients: RealtimeClient[] = [];
const admin = () => dashboardToken({ sub: 'admin-replay', roles: ['messaging:admin'] }, { maxAge: 86_400 });

const client = (url: string, options: ConstructorParameters<typeof RealtimeClient>[1]) => {
  const made = new RealtimeClient(url, options);
  clients.push(made);
  return made;
};

async function commit(conversation: string, count: number, prefix: string): Promise<void> {
  for (let i = 0; i < count; i++) await messagingRows.message(db.pool, conversation, `${prefix}-${i}`);
}

/** Resolves once `gateway` has read the log up to its newest row: what follows is a replay, not live. */
async function caughtUp(target: TestGateway = gateway): Promise<void> {
  const newest = Number(
    (await db.pool.query<{ n: string }>('SELECT max(id) AS n FROM realtime_events')).rows[0]?.n,
  );
  await expect
    .poll(async () => {
      const res = await fetch(`${target.url}/api/v1/health/full`, { headers: await fullHealthHeaders() });
      const body = (await res.json()) as {
        checks: { plugins: { realtime: { listener: { lastEventId: number } } } };
      };
      return body.checks.plugins.realtime.listener.lastEventId;
    })
    .toBeGreaterThanOrEqual(newest);
}

const fullHealthHeaders = async () => ({
  'x-internal-signature': sign({ method: 'GET', url: '/api/v1/health/full' }),
  'x-forwarded-session': await admin(),
});

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('enforce') });
});
afterAll(async () => {
  for (const made of clients) made.close();
  await gateway?.close();
  await db?.drop();
});

describe('reconnect replay', () => {
  it('a client disconnected while 100 events are committed receives all 100, in order, once, then new ones', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    // Its `conversation.created` behind the reader first, or it may arrive live as an extra event.
    await caughtUp();
    const room = `conversation:${conversation}`;
    const first = client(gateway.url, { token: await admin(), rooms: [room] });
    await first.ready();
    await commit(conversation, 1, 'before');
    await first.received((all) => all.length === 1, 'the first event');
    first.close();
    const lastSeen = first.lastEventId as number;

    await commit(conversation, 100, 'missed');
    await caughtUp();
    const back = client(gateway.url, { token: await admin(), rooms: [room], lastEventId: lastSeen });
    const ready = await back.ready();
    expect(ready.replayed).toBe(100);
    expect(back.events.map((event) => event.payload.text)).toEqual(
      Array.from({ length: 100 }, (_, i) => `missed-${i}`),
    );
    await commit(conversation, 1, 'live');
    const all = await back.received((events) => events.length === 101, 'the live event');
    expect(all.at(-1)?.payload.text).toBe('live-0');
    const ids = all.map((event) => event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(back.resyncs).toEqual([]);
  });

  it('replays only the rooms the client is entitled to now', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-r']);
    const mine = await messagingRows.conversation(db.pool, cluster);
    const other = await messagingRows.conversation(db.pool, null);
    const token = await dashboardToken({ sub: 'agent-r', roles: ['agent'] });
    const first = client(gateway.url, { token, rooms: [`cluster:${cluster}`] });
    const { lastEventId } = await first.ready();
    first.close();
    await commit(other, 3, 'other');
    await commit(mine, 3, 'mine');
    const back = client(gateway.url, {
      token,
      rooms: [`cluster:${cluster}`, `conversation:${other}`],
      lastEventId,
    });
    const ready = await back.ready();
    expect(ready.refused).toEqual([{ room: `conversation:${other}`, code: 'realtime.room.forbidden' }]);
    expect(back.events.map((event) => event.payload.text)).toEqual(['mine-0', 'mine-1', 'mine-2']);
  });

  it('subscribe with `since` replays the room from there before live events', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    // The conversation's own `conversation.created` must be behind the socket's starting point, or a loaded
    // machine's reader, still short of it at the handshake, replays it as a sixth event.
    await caughtUp();
    const socket = client(gateway.url, { token: await admin() });
    const { lastEventId } = await socket.ready();
    await commit(conversation, 5, 'earlier');
    await caughtUp();
    const answer = await socket.emit<{ rooms: string[]; replayed: number }>('subscribe', {
      rooms: [`conversation:${conversation}`],
      since: lastEventId,
    });
    expect(answer).toMatchObject({ rooms: [`conversation:${conversation}`], replayed: 5 });
    await commit(conversation, 1, 'later');
    const events = await socket.received((all) => all.length === 6, 'six events');
    expect(events.map((event) => event.payload.text)).toEqual([
      'earlier-0',
      'earlier-1',
      'earlier-2',
      'earlier-3',
      'earlier-4',
      'later-0',
    ]);
  });

  it('an id this log never had gets resync_required (unknown), then live events', async () => {
    const conversation = await messagingRows.conversation(db.pool, null);
    const socket = client(gateway.url, {
      token: await admin(),
      rooms: [`conversation:${conversation}`],
      lastEventId: 9_000_000_000,
    });
    const ready = await socket.ready();
    expect(socket.resyncs).toEqual([{ reason: 'unknown', lastEventId: ready.lastEventId }]);
    await commit(conversation, 1, 'after-resync');
    await socket.received(
      (all) => all.some((event) => event.payload.text === 'after-resync-0'),
      'a live event',
    );
  });
});

describe('a gateway restart', () => {
  it('a client reconnects on its own to the restarted gateway and is replayed what was committed meanwhile', async () => {
    const port = await freePort();
    const env = realtimeEnv('enforce', { PORT: String(port) });
    let restarting = await startTestGateway({ databaseUrl: db.url, env });
    const conversation = await messagingRows.conversation(db.pool, null);
    // Its `conversation.created` behind the reader first, or it may arrive live as a third event.
    await caughtUp(restarting);
    const socket = client(restarting.url, {
      token: await admin(),
      rooms: [`conversation:${conversation}`],
      reconnection: true,
    });
    await socket.ready();
    await commit(conversation, 2, 'before-restart');
    await socket.received((all) => all.length === 2, 'two events');
    await restarting.close();
    await expect.poll(() => socket.socket.connected).toBe(false);
    await commit(conversation, 30, 'while-down');
    restarting = await startTestGateway({ databaseUrl: db.url, env });
    try {
      await caughtUp(restarting);
      const ready = await socket.ready(2, 30_000);
      expect(ready.replayed).toBe(30);
      await commit(conversation, 1, 'after-restart');
      const events = await socket.received((all) => all.length === 33, '33 events');
      expect(events.map((event) => event.payload.text)).toEqual([
        'before-restart-0',
        'before-restart-1',
        ...Array.from({ length: 30 }, (_, i) => `while-down-${i}`),
        'after-restart-0',
      ]);
    } finally {
      socket.close();
      await restarting.close();
    }
  });
});

describe('retention', () => {
  it('prunes events older than the retention in the background, and a client behind that gets resync_required', async () => {
    const clock = createManualClock(Date.now());
    const pruning = await startTestGateway({
      databaseUrl: db.url,
      clock,
      env: realtimeEnv('enforce', { REALTIME_RETENTION_HOURS: '1', REALTIME_PRUNE_INTERVAL_MS: '1000' }),
    });
    try {
      const conversation = await messagingRows.conversation(db.pool, null);
      await commit(conversation, 3, 'old');
      const { rows } = await db.pool.query<{ id: string }>('SELECT max(id) AS id FROM realtime_events');
      const newest = Number(rows[0]?.id);
      clock.advance(2 * 3_600_000);
      const scalar = async (sql: string, values: unknown[] = []) =>
        Number((await db.pool.query<{ n: string }>(sql, values)).rows[0]?.n);
      await expect
        .poll(() => scalar('SELECT pruned_through AS n FROM realtime_retention'), { timeout: 15_000 })
        .toBeGreaterThanOrEqual(newest);
      expect(await scalar('SELECT count(*) AS n FROM realtime_events WHERE id <= $1', [newest])).toBe(0);

      const stale = client(pruning.url, {
        token: await admin(),
        rooms: [`conversation:${conversation}`],
        lastEventId: newest - 2,
      });
      const ready = await stale.ready();
      expect(stale.resyncs).toEqual([{ reason: 'expired', lastEventId: ready.lastEventId }]);
      expect(stale.events).toEqual([]);
    } finally {
      await pruning.close();
    }
  });

  it('a client further behind than REALTIME_REPLAY_MAX_EVENTS gets resync_required (too_many)', async () => {
    const small = await startTestGateway({
      databaseUrl: db.url,
      env: realtimeEnv('enforce', { REALTIME_REPLAY_MAX_EVENTS: '100' }),
    });
    try {
      const conversation = await messagingRows.conversation(db.pool, null);
      const first = client(small.url, { token: await admin(), rooms: [`conversation:${conversation}`] });
      const { lastEventId } = await first.ready();
      first.close();
      await commit(conversation, 101, 'many');
      const back = client(small.url, {
        token: await admin(),
        rooms: [`conversation:${conversation}`],
        lastEventId,
      });
      await back.ready();
      expect(back.resyncs.map((r) => r.reason)).toEqual(['too_many']);
      expect(back.events).toEqual([]);
    } finally {
      await small.close();
    }
  });
});
