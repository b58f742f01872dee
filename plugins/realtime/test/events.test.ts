/**
 * The five triggers (README, "Events"): each insert or update of a messaging table becomes one event in the
 * log, delivered to the rooms it names with UTC timestamps, to the sockets entitled to those rooms and to no
 * other. The NOTIFY stays a small wake-up whatever the payload's size.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../../../test/support/gate.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { EVENT_TYPES, type EventType } from '../src/domain/event-schemas.ts';
import {
  dashboardToken,
  messagingRows,
  RealtimeClient,
  realtimeEnv,
} from '../../../test/support/realtime.ts';

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let db: TestDatabase;
let gateway: TestGateway;
/** A writer whose session speaks another time zone: payload timestamps must still be UTC. */
let writer: pg.Client;
const clients: RealtimeClient[] = [];

/** Every event a client got has a documented type and a payload its published schema accepts. */
const conforming = (client: RealtimeClient) => {
  for (const event of client.events) {
    expect(Object.keys(EVENT_TYPES)).toContain(event.type);
    expect(() => EVENT_TYPES[event.type as EventType].payload.parse(event.payload)).not.toThrow();
  }
};

const connect = async (claims: Record<string, unknown>, rooms: string[] = []) => {
  const client = new RealtimeClient(gateway.url, { token: await dashboardToken(claims), rooms });
  clients.push(client);
  await client.ready();
  return client;
};

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('enforce') });
  writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  await writer.query("SET TIME ZONE 'Asia/Jakarta'");
});
afterAll(async () => {
  for (const client of clients) client.close();
  await writer?.end();
  await gateway?.close();
  await db?.drop();
});

describe('the five triggers', () => {
  it('messages and conversations reach the conversation room and the cluster room, with UTC timestamps', async () => {
    const cluster = await messagingRows.cluster(writer, ['agent-a']);
    const agent = await connect({ sub: 'agent-a', roles: ['agent'] }, [`cluster:${cluster}`]);
    const conversation = await messagingRows.conversation(writer, cluster);
    const message = await messagingRows.message(writer, conversation, 'halo, mau daftar');
    await writer.query(
      "UPDATE messaging_messages SET processing_status = 'processed', intent = 'wantRegister' WHERE id = $1",
      [message],
    );
    await writer.query('UPDATE messaging_conversations SET contact_name = $2 WHERE id = $1', [
      conversation,
      'Budi',
    ]);

    const events = await agent.received((all) => all.length >= 4, 'four events');
    expect(events.map((event) => event.type)).toEqual([
      'conversation.created',
      'message.created',
      'message.updated',
      'conversation.updated',
    ]);
    for (const event of events) {
      expect(event.rooms).toEqual([`conversation:${conversation}`, `cluster:${cluster}`]);
      expect(event.createdAt).toMatch(UTC);
    }
    expect(events[1]?.payload).toMatchObject({
      messageId: message,
      conversationId: conversation,
      direction: 'inbound',
      text: 'halo, mau daftar',
      processingStatus: 'queued',
    });
    expect(events[1]?.payload.createdAt).toMatch(UTC);
    expect(events[1]?.payload.providerTimestamp).toMatch(UTC);
    expect(events[2]?.payload).toMatchObject({ processingStatus: 'processed', intent: 'wantRegister' });
    expect(events[3]?.payload).toMatchObject({ contactName: 'Budi', clusterId: cluster });
    // Ids are the log's order: strictly increasing.
    expect(events.map((event) => event.id)).toEqual(
      [...events.map((event) => event.id)].sort((a, b) => a - b),
    );
  });

  it('leads reach their conversation, its cluster and the global lead feed; notifications only their user', async () => {
    const cluster = await messagingRows.cluster(writer, ['agent-b']);
    const agent = await connect({ sub: 'agent-b', roles: ['agent'] }, [`cluster:${cluster}`]);
    const admin = await connect({ sub: 'admin-1', roles: ['messaging:admin'] }, ['global:leads']);
    const other = await connect({ sub: 'agent-c', roles: ['agent'] });
    const conversation = await messagingRows.conversation(writer, cluster);
    await writer.query(
      `INSERT INTO messaging_leads (conversation_id, name, status, created_at, updated_at)
       VALUES ($1, 'Budi', 'incomplete', now(), now())
       ON CONFLICT (conversation_id) DO UPDATE SET name = EXCLUDED.name`,
      [conversation],
    );
    await writer.query(
      `UPDATE messaging_leads SET email = 'budi@example.com', status = 'captured', captured_at = now()
        WHERE conversation_id = $1`,
      [conversation],
    );
    await writer.query(
      `INSERT INTO messaging_notifications (user_id, event_key, kind, conversation_id, payload, created_at)
       VALUES ('agent-b', 'escalation:1', 'escalation', $1, '{"reason":"ask_human"}', now())`,
      [conversation],
    );
    await writer.query("UPDATE messaging_notifications SET read_at = now() WHERE user_id = 'agent-b'");

    const leads = (
      await agent.received((all) => all.filter((e) => e.type.startsWith('lead.')).length >= 2, 'leads')
    ).filter((event) => event.type === 'lead.upserted');
    expect(leads.map((event) => event.payload.status)).toEqual(['incomplete', 'captured']);
    expect(leads[0]?.rooms).toEqual([`conversation:${conversation}`, `cluster:${cluster}`, 'global:leads']);
    expect(leads[1]?.payload.capturedAt).toMatch(UTC);
    await admin.received((all) => all.filter((e) => e.type === 'lead.upserted').length >= 2, 'admin leads');

    const notes = await agent.received(
      (all) => all.filter((e) => e.type.startsWith('notification.')).length >= 2,
      'notifications',
    );
    const notifications = notes.filter((event) => event.type.startsWith('notification.'));
    expect(notifications.map((event) => [event.type, event.rooms])).toEqual([
      ['notification.created', ['user:agent-b']],
      ['notification.updated', ['user:agent-b']],
    ]);
    expect(notifications[1]?.payload.readAt).toMatch(UTC);
    expect(notifications[0]?.payload).toMatchObject({ kind: 'escalation', details: { reason: 'ask_human' } });

    // The bystander, in no cluster and not an admin, got none of it (its own rooms are empty of events).
    await writer.query(
      "INSERT INTO messaging_notifications (user_id, event_key, kind, payload, created_at) VALUES ('agent-c', 'k', 'test', '{}', now())",
    );
    await other.received((all) => all.length >= 1, 'its own notification');
    expect(other.events.map((event) => event.type)).toEqual(['notification.created']);
    expect(admin.events.every((event) => event.rooms.includes('global:leads'))).toBe(true);
  });

  it('follow-ups: the function announces a queue row to its conversation and cluster, once attached', async () => {
    const cluster = await messagingRows.cluster(writer, ['agent-d']);
    const agent = await connect({ sub: 'agent-d', roles: ['agent'] }, [`cluster:${cluster}`]);
    const conversation = await messagingRows.conversation(writer, cluster);
    // The queue table arrives with the follow-up feature; its migration attaches the trigger like this.
    await writer.query(`CREATE TABLE followup_queue_probe (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(), conversation_id uuid NOT NULL, rule_id text,
      status text NOT NULL, due_at timestamptz NOT NULL)`);
    await writer.query(`CREATE TRIGGER followup_queue_probe_realtime AFTER INSERT OR UPDATE ON followup_queue_probe
      FOR EACH ROW EXECUTE FUNCTION notify_followup_event()`);
    await writer.query(
      "INSERT INTO followup_queue_probe (conversation_id, rule_id, status, due_at) VALUES ($1, 'quiet-24h', 'pending', now() + interval '1 day')",
      [conversation],
    );
    await writer.query("UPDATE followup_queue_probe SET status = 'sent'");
    const events = await agent.received((all) => all.length >= 3, 'follow-up events');
    const followups = events.filter((event) => event.type.startsWith('followup.'));
    expect(followups.map((event) => [event.type, event.payload.status])).toEqual([
      ['followup.scheduled', 'pending'],
      ['followup.updated', 'sent'],
    ]);
    expect(followups[0]?.rooms).toEqual([`conversation:${conversation}`, `cluster:${cluster}`]);
    expect(followups[0]?.payload).toMatchObject({ conversationId: conversation, ruleId: 'quiet-24h' });
    expect(followups[0]?.payload.dueAt).toMatch(UTC);
  });
});

describe('sizes', () => {
  it('a message with a 60 KB body is delivered whole, while its NOTIFY stays far below 8000 bytes', async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const notifications: string[] = [];
    listener.on('notification', (message) => notifications.push(message.payload ?? ''));
    await listener.query('LISTEN service_events');
    try {
      const admin = await connect({ sub: 'admin-2', roles: ['*'] });
      const conversation = await messagingRows.conversation(writer, null);
      const joined = await admin.emit<{ rooms: string[] }>('subscribe', {
        rooms: [`conversation:${conversation}`],
      });
      expect(joined.rooms).toEqual([`conversation:${conversation}`]);
      const body = 'ü'.repeat(30_000) + 'x'.repeat(1_000);
      await messagingRows.message(writer, conversation, body);
      const events = await admin.received(
        (all) => all.some((e) => e.type === 'message.created'),
        'the big message',
      );
      expect(events.find((e) => e.type === 'message.created')?.payload.text).toBe(body);
      await expect.poll(() => notifications.length).toBeGreaterThan(0);
      for (const payload of notifications) {
        expect(Buffer.byteLength(payload)).toBeLessThan(1_000);
        expect(Object.keys(JSON.parse(payload) as object).sort()).toEqual(['id', 'rooms', 'type']);
      }
    } finally {
      await listener.end();
    }
  });
});

describe('payloads', () => {
  it('every event received above has a documented type and a payload its published schema accepts', () => {
    expect(clients.flatMap((client) => client.events).length).toBeGreaterThan(15);
    for (const client of clients) conforming(client);
  });
});

describe('metrics and health', () => {
  it('count sockets, deliveries by type, latency, handshakes; the health route shows the bridge', async () => {
    const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    const value = (series: string) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('gatehouse_realtime_sockets')).toBeGreaterThanOrEqual(clients.length - 1);
    expect(value('gatehouse_realtime_listener_connected')).toBe(1);
    expect(value('gatehouse_realtime_events_delivered_total\\{type="message.created"\\}')).toBeGreaterThan(0);
    expect(value('gatehouse_realtime_delivery_seconds_count')).toBeGreaterThan(0);
    expect(
      value('gatehouse_realtime_handshakes_total\\{mode="enforce",outcome="pass"\\}'),
    ).toBeGreaterThanOrEqual(clients.length);
    expect(text).toMatch(/^gatehouse_realtime_listener_reconnects_total 0$/m);
    expect(text).toMatch(/^gatehouse_realtime_replay_events_count \d+$/m);

    const health = (await (await fetch(`${gateway.url}/api/v1/health/realtime`)).json()) as Record<
      string,
      unknown
    >;
    expect(Object.keys(health).sort()).toEqual(
      ['connectedSockets', 'eventCount', 'lastNotifyAt', 'listenerReconnects', 'pgBridge', 'socketio'].sort(),
    );
    expect(health).toMatchObject({
      pgBridge: { connected: true },
      socketio: { namespaces: ['/'] },
      listenerReconnects: 0,
    });
    expect(health.eventCount).toBeGreaterThan(10);
    expect(health.lastNotifyAt).toMatch(UTC);

    const full = await fetch(`${gateway.url}/api/v1/health/full`, {
      headers: {
        'x-internal-signature': sign({ method: 'GET', url: '/api/v1/health/full' }),
        'x-forwarded-session': await dashboardToken({ sub: 'sre', roles: ['*'] }),
      },
    });
    expect(full.status).toBe(200);
    expect(
      ((await full.json()) as { checks: { plugins: Record<string, unknown> } }).checks.plugins.realtime,
    ).toMatchObject({
      status: 'ok',
      listener: { connected: true, reconnects: 0, lastNotifyAt: expect.stringMatching(UTC) as unknown },
    });
  });
});
