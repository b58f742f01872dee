/**
 * Who sees what in the agent inbox (plugins/messaging/README.md, "Staff API", "Agent inbox"): an agent sees
 * and changes only the conversations of their clusters; one of another cluster answers exactly like one
 * that does not exist, on every route, and nothing of it changes; an admin sees all; a caller without a
 * staff session gets 401. Gateway in enforce mode, requests signed as the dashboard signs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startTestGateway } from '../../../test/support/gateway.ts';
import type { ProviderStub } from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import {
  ADMIN,
  agent,
  staffApiEnv,
  staffClient,
  staffFetch,
  type StaffClient,
} from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let provider: ProviderStub;
let agentA: StaffClient;
let admin: StaffClient;
let clusterA: string;
let clusterB: string;
let convA: string;
let convB: string;
let convNone: string;

beforeAll(async () => {
  ({ db, provider, gateway, admin, stop } = await startStaffApiHarness());
  clusterA = await messagingRows.cluster(db.pool, ['agent-a', 'agent-a2']);
  clusterB = await messagingRows.cluster(db.pool, ['agent-b']);
  convA = await messagingRows.conversation(db.pool, clusterA);
  convB = await messagingRows.conversation(db.pool, clusterB);
  convNone = await messagingRows.conversation(db.pool, null);
  for (const id of [convA, convB, convNone]) await messagingRows.message(db.pool, id, `hello from ${id}`);
  agentA = staffClient(gateway, agent('agent-a'));
});
afterAll(() => stop?.());

/** Every inbox route about one conversation, with a body it would accept. */
const CONVERSATION_ROUTES: Array<{ method: 'GET' | 'POST'; path: (id: string) => string; json?: unknown }> = [
  { method: 'GET', path: (id) => `/api/v1/agent/conversations/${id}` },
  { method: 'GET', path: (id) => `/api/v1/agent/conversations/${id}/messages` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/read` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/assign`, json: { userId: 'agent-b' } },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/unassign` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/resolve` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/reopen` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/handback` },
  { method: 'POST', path: (id) => `/api/v1/agent/conversations/${id}/replies`, json: { text: 'Halo' } },
];

const call = (client: StaffClient, route: (typeof CONVERSATION_ROUTES)[number], id: string) =>
  route.method === 'GET'
    ? client.get(route.path(id))
    : client.post(route.path(id), { json: route.json ?? {} });

/** Everything a call could change about a conversation. */
async function snapshot(id: string) {
  const conversation = await db.pool.query<Record<string, unknown>>(
    'SELECT * FROM messaging_conversations WHERE id = $1',
    [id],
  );
  const messages = await db.pool.query(
    'SELECT id, delivery_status FROM messaging_messages WHERE conversation_id = $1 ORDER BY seq',
    [id],
  );
  return { conversation: conversation.rows, messages: messages.rows };
}

async function listIds(client: StaffClient, query = ''): Promise<string[]> {
  const res = await client.get(`/api/v1/agent/conversations${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id);
}

describe('an agent of cluster A', () => {
  it('is told who they are and sees only their clusters', async () => {
    const res = await agentA.get('/api/v1/agent/me');
    expect(res.status).toBe(200);
    const me = (await res.json()) as { userId: string; admin: boolean; clusters: Array<{ id: string }> };
    expect(me).toMatchObject({ userId: 'agent-a', admin: false });
    expect(me.clusters.map((cluster) => cluster.id)).toEqual([clusterA]);
  });

  it("lists cluster A's conversations and never another cluster's or an unrouted one", async () => {
    expect(await listIds(agentA)).toEqual([convA]);
    expect(await listIds(agentA, `?cluster=${clusterA}`)).toEqual([convA]);
    // The search runs inside the scope: B's contact is not found by their number.
    const phoneB = (await snapshot(convB)).conversation[0]?.contact_phone as string;
    expect(await listIds(agentA, `?q=${phoneB}`)).toEqual([]);
  });

  it('filtering on cluster B is a 404, like a cluster that does not exist', async () => {
    for (const cluster of [clusterB, '6f1c1d3e-0a4b-4c3d-9e2f-1a2b3c4d5e6f']) {
      const res = await agentA.get(`/api/v1/agent/conversations?cluster=${cluster}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('messaging.cluster.not_found');
    }
  });

  it.each(CONVERSATION_ROUTES.map((route) => [`${route.method} ${route.path(':id')}`, route] as const))(
    '%s on a conversation of cluster B or of no cluster is the not-found answer, and changes nothing',
    async (_name, route) => {
      for (const id of [convB, convNone]) {
        const before = await snapshot(id);
        const res = await call(agentA, route, id);
        expect(res.status).toBe(404);
        const body = (await res.json()) as { code: string; requestId: string };
        expect(body.code).toBe('messaging.conversation.not_found');
        expect(body.requestId).toEqual(expect.any(String));
        expect(await snapshot(id)).toEqual(before);
      }
      // The same answer as for a conversation that does not exist.
      const missing = await call(agentA, route, '6f1c1d3e-0a4b-4c3d-9e2f-1a2b3c4d5e6f');
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe('messaging.conversation.not_found');
    },
  );

  it('assigns only to members of the conversation’s cluster', async () => {
    const outsider = await agentA.post(`/api/v1/agent/conversations/${convA}/assign`, {
      json: { userId: 'agent-b' },
    });
    expect(outsider.status).toBe(422);
    expect(((await outsider.json()) as { code: string }).code).toBe('messaging.assignee.not_member');
    expect((await snapshot(convA)).conversation[0]?.assigned_to).toBeNull();

    const colleague = await agentA.post(`/api/v1/agent/conversations/${convA}/assign`, {
      json: { userId: 'agent-a2' },
    });
    expect(colleague.status).toBe(200);
    expect(await colleague.json()).toMatchObject({ id: convA, assignedTo: 'agent-a2', handler: 'bot' });
  });
});

describe('an admin', () => {
  it('is told they see every cluster', async () => {
    const me = (await (await admin.get('/api/v1/agent/me')).json()) as {
      admin: boolean;
      clusters: Array<{ id: string; member: boolean }>;
    };
    expect(me.admin).toBe(true);
    expect(me.clusters.map((cluster) => cluster.id).sort()).toEqual([clusterA, clusterB].sort());
    expect(me.clusters.every((cluster) => !cluster.member)).toBe(true);
  });

  it('lists every conversation, routed or not', async () => {
    expect((await listIds(admin)).sort()).toEqual([convA, convB, convNone].sort());
    expect(await listIds(admin, `?cluster=${clusterB}`)).toEqual([convB]);
  });

  it.each(CONVERSATION_ROUTES.map((route) => [`${route.method} ${route.path(':id')}`, route] as const))(
    '%s works on a conversation of any cluster',
    async (_name, route) => {
      const res = await call(admin, route, convB);
      expect(res.status).toBeLessThan(300);
    },
  );

  it('may take a conversation outside their memberships, but not give it to a non-member', async () => {
    const take = await admin.post(`/api/v1/agent/conversations/${convNone}/assign`, {
      json: { userId: ADMIN.sub },
    });
    expect(take.status).toBe(200);
    expect(await take.json()).toMatchObject({ assignedTo: ADMIN.sub, handler: 'agent' });
    const give = await admin.post(`/api/v1/agent/conversations/${convNone}/assign`, {
      json: { userId: 'agent-a' },
    });
    expect(give.status).toBe(422);
  });
});

describe('a caller without a staff session', () => {
  const paths = [
    { method: 'GET', path: '/api/v1/agent/me' },
    { method: 'GET', path: '/api/v1/agent/conversations' },
    ...CONVERSATION_ROUTES.map((route) => ({ method: route.method, path: route.path(':id') })),
  ];
  it.each(paths)('$method $path is 401, with no session or a forged one', async ({ method, path }) => {
    for (const session of ['', 'not-a-session-token']) {
      const res = await staffFetch(gateway, agent('agent-a'), method, path.replace(':id', convA), {
        ...(method === 'POST' ? { json: {} } : {}),
        headers: { 'x-forwarded-session': session },
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('a dashboard session whose subject cannot name a staff member', () => {
  // In warn mode the gate lets requests through, and the staff API verifies the forwarded session itself.
  let warn: TestGateway;
  beforeAll(async () => {
    warn = await startTestGateway({
      databaseUrl: db.url,
      env: staffApiEnv(provider, { API_AUTH_MODE: 'warn' }),
    });
  });
  afterAll(async () => {
    await warn?.close();
  });

  it.each([
    ['an empty subject', ''],
    ['201 characters', 'a'.repeat(201)],
    ['a control character', 'agent\u0001a'],
  ])('with %s, even as an admin, is 401 on reads and writes, never a 500', async (_label, sub) => {
    for (const target of [gateway, warn])
      for (const [method, path, json] of [
        ['GET', '/api/v1/agent/me', undefined],
        ['POST', `/api/v1/agent/conversations/${convA}/replies`, { text: 'hello' }],
      ] as const) {
        const res = await staffFetch(
          target,
          { sub, roles: ['messaging:admin'] },
          method,
          path,
          json ? { json } : {},
        );
        expect(res.status).toBe(401);
        // The gate may refuse first in enforce mode; either way a 401 problem, never a write.
        expect(['messaging.staff.unauthenticated', 'api.auth.unauthenticated']).toContain(
          ((await res.json()) as { code: string }).code,
        );
      }
  });
});
