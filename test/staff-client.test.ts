/**
 * The generated staff API client (plugins/messaging/README.md, "API document"): the checked-in types are what
 * `npm run openapi:types` generates now, and docs/examples/staff-client.ts (openapi-fetch over those types,
 * signing both gate layers) lists the inbox and leads v2 and gives feedback, end to end against a gateway in
 * enforce mode.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAFF_API_TYPES_PATH, staffApiTypes } from '../docs/examples/staff-api-types.ts';
import { createStaffClient, type StaffApiClient } from '../docs/examples/staff-client.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { INTERNAL_SECRET } from './support/gate.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { startProviderStub, type ProviderStub } from './support/messaging.ts';
import { seedLead } from './support/leads.ts';
import { dashboardToken, messagingRows } from './support/realtime.ts';
import { staffApiEnv } from './support/staff-api.ts';

let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let clusterId: string;
let conversationId: string;
let replyId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  gateway = await startTestGateway({ databaseUrl: db.url, env: staffApiEnv(provider) });
  clusterId = await messagingRows.cluster(db.pool, ['client-agent']);
  conversationId = await messagingRows.conversation(db.pool, clusterId);
  const inbound = await messagingRows.message(db.pool, conversationId, 'berapa biaya kuliah S1?');
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO messaging_messages (conversation_id, direction, type, text, payload, created_at, delivery_status,
       template, in_reply_to)
     VALUES ($1, 'outbound', 'text', 'Silakan daftar', '{}', now(), 'sent', 'register', $2) RETURNING id`,
    [conversationId, inbound],
  );
  replyId = rows[0]?.id as string;
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
  await db?.drop();
});

async function client(sub: string, roles: string[] = ['agent']): Promise<StaffApiClient> {
  const sessionToken = await dashboardToken({ sub, email: null, roles });
  return createStaffClient(gateway.url, { internalSecret: INTERNAL_SECRET, sessionToken });
}

describe('docs/examples/staff-api.d.ts', () => {
  it('is what `npm run openapi:types` generates from the current document', async () => {
    expect(readFileSync(STAFF_API_TYPES_PATH, 'utf8')).toBe(await staffApiTypes());
  });
});

describe('docs/examples/staff-client.ts', () => {
  it('gives, reads and lists feedback with signed requests (bodies and queries)', async () => {
    const staff = await client('client-agent');
    const put = await staff.PUT('/api/v1/messages/{id}/feedback', {
      params: { path: { id: replyId } },
      body: { rating: 'down', correctIntent: 'askFees', correctAnswer: 'Rp 5 juta per semester' },
    });
    expect(put.error).toBeUndefined();
    expect(put.response.status).toBe(201);
    expect(put.data).toMatchObject({ messageId: replyId, userId: 'client-agent', correctIntent: 'askFees' });

    const read = await staff.GET('/api/v1/messages/{id}/feedback', { params: { path: { id: replyId } } });
    expect(read.data?.mine?.rating).toBe('down');

    const list = await staff.GET('/api/v1/messages/feedback', {
      params: { query: { limit: 5, rating: 'down', hasCorrection: 'true' } },
    });
    expect(list.response.status).toBe(200);
    expect(list.data?.items.map((item) => item.messageId)).toEqual([replyId]);

    const gold = await staff.GET('/api/v1/messages/feedback/gold-set', { parseAs: 'text' });
    expect(gold.data).toBe('{"text": "berapa biaya kuliah S1?", "intent": "askFees", "lang": "id"}\n');
  });

  it('lists the inbox with filters', async () => {
    const staff = await client('client-agent');
    const inbox = await staff.GET('/api/v1/agent/conversations', {
      params: { query: { status: 'open', assigned: 'any', cluster: clusterId, limit: 10 } },
    });
    expect(inbox.error).toBeUndefined();
    expect(inbox.response.status).toBe(200);
    expect(inbox.data?.items.map((conversation) => conversation.id)).toContain(conversationId);
    expect(inbox.data?.items.every((conversation) => conversation.clusterId === clusterId)).toBe(true);

    const other = await messagingRows.cluster(db.pool, []);
    const outside = await staff.GET('/api/v1/agent/conversations', { params: { query: { cluster: other } } });
    expect(outside.response.status).toBe(404);
    expect(outside.error?.code).toBe('messaging.cluster.not_found');
  });

  it('lists leads v2 with filters and walks its pages by cursor', async () => {
    const otherCluster = await messagingRows.cluster(db.pool, []);
    for (const name of ['Budi Santoso', 'Budi Hartono', 'Siti Aminah']) {
      await seedLead(db.pool, { clusterId, name, email: `${name.split(' ')[0]}@example.com` });
    }
    await seedLead(db.pool, { clusterId: otherCluster, name: 'Budi Lain', email: 'lain@example.com' });
    const staff = await client('client-agent');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await staff.GET('/api/v1/leads/v2', {
        // A space and a status list: the signature covers the query exactly as openapi-fetch encodes it.
        params: { query: { q: 'budi ', status: ['captured', 'qualified'], limit: 1, cursor } },
      });
      expect(page.error).toBeUndefined();
      seen.push(...(page.data?.items.map((lead) => lead.name ?? '') ?? []));
      cursor = page.data?.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen.sort()).toEqual(['Budi Hartono', 'Budi Santoso']);
  });

  it('types the problem+json answers', async () => {
    const outsider = await client('someone-else');
    const res = await outsider.GET('/api/v1/messages/{id}/feedback', { params: { path: { id: replyId } } });
    expect(res.response.status).toBe(404);
    expect(res.error?.code).toBe('messaging.message.not_found');

    const staff = await client('client-agent');
    const bad = await staff.PUT('/api/v1/messages/{id}/feedback', {
      params: { path: { id: replyId } },
      // @ts-expect-error: not an intent the classifier knows; the types refuse it before the gateway does
      body: { correctIntent: 'askWeather' },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors?.map((e) => e.path)).toEqual(['body.correctIntent']);
  });

  it('is refused by the gate with a wrong secret', async () => {
    const sessionToken = await dashboardToken({ sub: 'client-agent', email: null, roles: ['agent'] });
    const forged = createStaffClient(gateway.url, { internalSecret: 'x'.repeat(40), sessionToken });
    const res = await forged.GET('/api/v1/messages/feedback');
    expect(res.response.status).toBe(401);
    expect(res.error?.code).toBe('api.auth.unauthenticated');
  });
});
