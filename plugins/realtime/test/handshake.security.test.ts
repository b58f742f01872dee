/**
 * Who may connect and what they may hear (README, "Connecting" and "Rooms"): the handshake is checked by the
 * gate's own session verifier in the gate's phase, a revoked session is cut off, and rooms are joined only
 * with the entitlement the database gives now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { AUTH_SECRET_OLD, mintSession } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { sessionCookieOf } from '../../../test/support/http.ts';
import {
  dashboardToken,
  messagingRows,
  RealtimeClient,
  realtimeEnv,
} from '../../../test/support/realtime.ts';

const APP = 'http://localhost:3000';
let db: TestDatabase;
const gateways: Record<'enforce' | 'warn' | 'disabled', TestGateway> = {} as never;
const clients: RealtimeClient[] = [];

const client = (gateway: TestGateway, options: ConstructorParameters<typeof RealtimeClient>[1] = {}) => {
  const made = new RealtimeClient(gateway.url, options);
  clients.push(made);
  return made;
};

const auditRows = async (gateway: TestGateway) => {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
    "SELECT payload FROM audit_log WHERE kind = 'api.auth.session_failed' AND payload->>'route' = '/socket.io' ORDER BY id",
  );
  return rows.map((row) => row.payload);
};

beforeAll(async () => {
  db = await createTestDatabase();
  for (const mode of ['enforce', 'warn', 'disabled'] as const) {
    gateways[mode] = await startTestGateway({
      databaseUrl: db.url,
      env: realtimeEnv(mode, { APP_BASE_URL: APP }),
    });
  }
  await seedLocalAccount(db.pool, {
    email: 'agent@example.com',
    password: 'violet umbrella 42',
    roles: ['agent'],
  });
});
afterAll(async () => {
  for (const made of clients) made.close();
  for (const gateway of Object.values(gateways)) await gateway?.close();
  await db?.drop();
});

const login = async (gateway: TestGateway) =>
  sessionCookieOf(
    await fetch(`${gateway.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'agent@example.com', password: 'violet umbrella 42' }),
    }),
  );

describe('enforce', () => {
  it('accepts an Auth.js token (encode() of @auth/core) and joins its own user and role rooms', async () => {
    const socket = client(gateways.enforce, {
      token: await dashboardToken({ sub: 'u-1', roles: ['agent'] }),
    });
    const ready = await socket.ready();
    expect(ready.rooms.sort()).toEqual(['role:agent', 'user:u-1']);
  });

  it('accepts the gateway session cookie from the app origin, and the cookie value as auth.token', async () => {
    const cookie = await login(gateways.enforce);
    const byCookie = client(gateways.enforce, {
      headers: { cookie: `authjs.session-token=${cookie}`, origin: APP },
    });
    expect((await byCookie.ready()).rooms).toContain('role:agent');
    const byToken = client(gateways.enforce, { token: cookie });
    expect((await byToken.ready()).rooms).toContain('role:agent');
  });

  it('refuses the cookie from a foreign origin: realtime.origin.forbidden', async () => {
    const cookie = await login(gateways.enforce);
    const socket = client(gateways.enforce, {
      headers: { cookie: `authjs.session-token=${cookie}`, origin: 'https://evil.example' },
    });
    expect((await socket.refused()).data).toMatchObject({ code: 'realtime.origin.forbidden', status: 403 });
  });

  it.each([
    ['no token', () => Promise.resolve(undefined)],
    [
      'a token made with another secret',
      async () => mintSession({ secret: 'not-the-gateway-secret-0123456789abcdef' }),
    ],
    ['an expired token', async () => mintSession({ maxAge: -60 })],
    ['garbage', () => Promise.resolve('not.a.token')],
  ])('refuses %s with connect_error realtime.unauthenticated (a problem object)', async (_what, token) => {
    const socket = client(gateways.enforce, { token: await token() });
    const refusal = await socket.refused();
    expect(refusal.message).toBe('realtime.unauthenticated');
    expect(refusal.data).toMatchObject({
      code: 'realtime.unauthenticated',
      status: 401,
      type: 'urn:gatehouse:problem:realtime.unauthenticated',
    });
    expect(socket.readies).toEqual([]);
  });

  it('refuses a malformed handshake auth object: realtime.handshake.invalid', async () => {
    const socket = new RealtimeClient(gateways.enforce.url, { rooms: 'user:x' as unknown as string[] });
    clients.push(socket);
    expect((await socket.refused()).data).toMatchObject({ code: 'realtime.handshake.invalid', status: 400 });
  });

  it('refuses a revoked session, and disconnects an open socket when its session is revoked', async () => {
    const cookie = await login(gateways.enforce);
    const socket = client(gateways.enforce, { token: cookie });
    await socket.ready();
    const out = await fetch(`${gateways.enforce.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { cookie: `authjs.session-token=${cookie}`, origin: APP },
    });
    expect(out.status).toBe(204);
    await expect.poll(() => socket.endings.length, { timeout: 10_000 }).toBe(1);
    expect(socket.endings[0]).toMatchObject({ code: 'realtime.session.ended', status: 401 });
    await expect.poll(() => socket.socket.connected).toBe(false);

    const again = client(gateways.enforce, { token: cookie });
    expect((await again.refused()).data).toMatchObject({ code: 'realtime.unauthenticated' });
  });
});

describe('warn and disabled', () => {
  it('warn: accepts a bad token without an identity and audits it like the HTTP gate, collapsed', async () => {
    const before = (await auditRows(gateways.warn)).length;
    for (let i = 0; i < 3; i++) {
      const socket = client(gateways.warn, { token: 'not.a.token' });
      expect((await socket.ready()).rooms).toEqual([]);
    }
    const rows = (await auditRows(gateways.warn)).slice(before);
    expect(rows[0]).toMatchObject({ mode: 'warn', reason: 'malformed', method: 'GET', route: '/socket.io' });
    expect(JSON.stringify(rows)).not.toContain('not.a.token');
    // Three identical failures in a minute: one row now, the rest summarised when the window closes.
    expect(rows.length).toBe(1);
  });

  it('disabled: accepts without a token and writes nothing; an anonymous socket may join no room', async () => {
    const before = (await auditRows(gateways.disabled)).length;
    const socket = client(gateways.disabled);
    expect((await socket.ready()).rooms).toEqual([]);
    const cluster = await messagingRows.cluster(db.pool);
    const answer = await socket.emit<{ rooms: string[]; refused: Array<{ room: string; code: string }> }>(
      'subscribe',
      { rooms: [`cluster:${cluster}`, 'global:leads'] },
    );
    expect(answer.rooms).toEqual([]);
    expect(answer.refused.map((r) => r.code)).toEqual(['realtime.room.forbidden', 'realtime.room.forbidden']);
    expect((await auditRows(gateways.disabled)).length).toBe(before);
  });

  it('a token made with the previous secret of a rotation is still accepted', async () => {
    const socket = client(gateways.enforce, { token: await dashboardToken({}, { secret: AUTH_SECRET_OLD }) });
    await socket.ready();
  });
});

describe('rooms', () => {
  it('an agent may join its own cluster and its conversations, never another cluster, conversation, user or role', async () => {
    const mine = await messagingRows.cluster(db.pool, ['agent-x']);
    const theirs = await messagingRows.cluster(db.pool, ['agent-y']);
    const myConversation = await messagingRows.conversation(db.pool, mine);
    const theirConversation = await messagingRows.conversation(db.pool, theirs);
    const unrouted = await messagingRows.conversation(db.pool, null);
    const socket = client(gateways.enforce, {
      token: await dashboardToken({ sub: 'agent-x', roles: ['agent'] }),
    });
    await socket.ready();
    const answer = await socket.emit<{ rooms: string[]; refused: Array<{ room: string; code: string }> }>(
      'subscribe',
      {
        rooms: [
          `cluster:${mine}`,
          `conversation:${myConversation}`,
          `cluster:${theirs}`,
          `conversation:${theirConversation}`,
          `conversation:${unrouted}`,
          'user:agent-y',
          'role:messaging:admin',
          'global:leads',
          'nonsense',
          'cluster:not-a-uuid',
        ],
      },
    );
    expect(answer.rooms).toEqual([`cluster:${mine}`, `conversation:${myConversation}`]);
    expect(answer.refused).toEqual([
      { room: 'nonsense', code: 'realtime.room.invalid' },
      { room: 'cluster:not-a-uuid', code: 'realtime.room.invalid' },
      { room: `cluster:${theirs}`, code: 'realtime.room.forbidden' },
      { room: `conversation:${theirConversation}`, code: 'realtime.room.forbidden' },
      { room: `conversation:${unrouted}`, code: 'realtime.room.forbidden' },
      { room: 'user:agent-y', code: 'realtime.room.forbidden' },
      { room: 'role:messaging:admin', code: 'realtime.room.forbidden' },
      { room: 'global:leads', code: 'realtime.room.forbidden' },
    ]);

    // The other cluster's traffic never reaches this socket; its own does.
    await messagingRows.message(db.pool, theirConversation, 'not for agent-x');
    await messagingRows.message(db.pool, myConversation, 'for agent-x');
    const events = await socket.received(
      (all) => all.some((e) => e.payload.text === 'for agent-x'),
      'own message',
    );
    expect(events.some((e) => e.payload.text === 'not for agent-x')).toBe(false);
  });

  it('removing an agent from a cluster takes the socket out of its rooms within seconds', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-z']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const socket = client(gateways.enforce, {
      token: await dashboardToken({ sub: 'agent-z', roles: ['agent'] }),
      rooms: [`cluster:${cluster}`, `conversation:${conversation}`],
    });
    expect((await socket.ready()).rooms.sort()).toEqual(
      [`cluster:${cluster}`, `conversation:${conversation}`, 'role:agent', 'user:agent-z'].sort(),
    );
    await db.pool.query("DELETE FROM messaging_cluster_members WHERE user_id = 'agent-z'");
    await expect
      .poll(() => socket.unsubscribed.flatMap((u) => u.rooms).sort(), { timeout: 10_000 })
      .toEqual([`cluster:${cluster}`, `conversation:${conversation}`].sort());
    const marker = await messagingRows.conversation(db.pool, null);
    await messagingRows.message(db.pool, conversation, 'after removal');
    await db.pool.query(
      "INSERT INTO messaging_notifications (user_id, event_key, kind, conversation_id, payload, created_at) VALUES ('agent-z', 'after', 'test', $1, '{}', now())",
      [marker],
    );
    const events = await socket.received(
      (all) => all.some((e) => e.type === 'notification.created'),
      'marker',
    );
    expect(events.some((e) => e.payload.text === 'after removal')).toBe(false);
  });

  it('answers a malformed subscribe with realtime.request.invalid and keeps the socket', async () => {
    const socket = client(gateways.enforce, { token: await dashboardToken() });
    await socket.ready();
    for (const body of [
      null,
      'x',
      { rooms: 'x' },
      { rooms: [] },
      { rooms: ['a'], extra: 1 },
      { rooms: ['a'], since: -1 },
    ]) {
      const answer = await socket.emit<{ error: { code: string; status: number } }>('subscribe', body);
      expect(answer.error).toMatchObject({ code: 'realtime.request.invalid', status: 400 });
    }
    expect(socket.socket.connected).toBe(true);
  });
});
