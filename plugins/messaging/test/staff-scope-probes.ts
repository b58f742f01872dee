/**
 * The scope probe of each staff route (staff-routes.security.test.ts): what an agent of cluster A gets when
 * aiming at cluster B's conversation, message, lead or feedback — the 404 of a record that does not exist,
 * or a list without it — and, where it matters, that an admin does get it.
 */
import { expect } from 'vitest';
import type pg from 'pg';
import { messagingRows } from '../../../test/support/realtime.ts';
import type { StaffClient } from '../../../test/support/staff-api.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';

/** One route of the booted gateway's route table. */
export type RouteSummary = TestGateway['routes'][number];

/** The staff API: every gated route of the messaging plugin. */
export function staffRoutes(all: readonly RouteSummary[]): RouteSummary[] {
  return all.filter((route) => route.owner === 'messaging' && !route.exempt);
}

export interface Seeded {
  agentA: string;
  clusterA: string;
  clusterB: string;
  conversationB: string;
  /** An inbound message of conversation B, and the bot's reply to it. */
  inboundB: string;
  replyB: string;
  leadB: string;
  /** Path parameter values that name cluster B's records, by parameter name. */
  paramsB: Record<string, string>;
}

/** Cluster A with its agent, cluster B with a conversation, a bot reply, a lead and feedback on the reply. */
export async function seedTwoClusters(pool: pg.Pool): Promise<Seeded> {
  const agentA = 'agent-a';
  const clusterA = await messagingRows.cluster(pool, [agentA]);
  const clusterB = await messagingRows.cluster(pool, ['agent-b']);
  const conversationB = await messagingRows.conversation(pool, clusterB);
  await pool.query(
    `UPDATE messaging_conversations SET contact_name = 'Bianca B', unread_count = 1 WHERE id = $1`,
    [conversationB],
  );
  const inboundB = await messagingRows.message(pool, conversationB, 'mau daftar kak');
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO messaging_messages (conversation_id, direction, type, text, payload, created_at, delivery_status,
       template, in_reply_to)
     VALUES ($1, 'outbound', 'text', 'Silakan daftar di sini', '{}', now(), 'sent', 'register', $2) RETURNING id`,
    [conversationB, inboundB],
  );
  const replyB = rows[0]?.id as string;
  const lead = await pool.query<{ id: string }>(
    `INSERT INTO messaging_leads (conversation_id, name, email, status, created_at, updated_at)
     VALUES ($1, 'Bianca B', 'bianca@example.com', 'captured', now(), now()) RETURNING id`,
    [conversationB],
  );
  const leadB = lead.rows[0]?.id as string;
  await pool.query(
    `INSERT INTO messaging_message_feedback (message_id, user_id, rating, corrected_intent, created_at, updated_at)
     VALUES ($1, 'agent-b', 'down', 'wantVisitCampus', now(), now())`,
    [replyB],
  );
  return {
    agentA,
    clusterA,
    clusterB,
    conversationB,
    inboundB,
    replyB,
    leadB,
    paramsB: { id: conversationB },
  };
}

type Probe = (client: StaffClient, seeded: Seeded, key: string) => Promise<void>;

async function notFound(res: Response, code: string, key: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${key}: ${text}`).toBe(404);
  expect((JSON.parse(text) as { code: string }).code, key).toBe(code);
}

async function json(res: Response, key: string): Promise<string> {
  const text = await res.text();
  expect(res.status, `${key}: ${text}`).toBeLessThan(300);
  return text;
}

const conversationNotFound =
  (path: (s: Seeded) => string, method: 'get' | 'post' = 'post', body: unknown = {}): Probe =>
  async (client, s, key) =>
    notFound(
      await client[method](path(s), method === 'get' ? undefined : { json: body }),
      'messaging.conversation.not_found',
      key,
    );

/** A list as an agent of A lacks B's record; as an admin it has it. */
const listWithout = (
  path: (s: Seeded) => string,
  id: (s: Seeded) => string,
): { agent: Probe; admin: Probe } => ({
  agent: async (client, s, key) => expect(await json(await client.get(path(s)), key)).not.toContain(id(s)),
  admin: async (client, s, key) => expect(await json(await client.get(path(s)), key)).toContain(id(s)),
});

const conv = (suffix: string) => (s: Seeded) => `/api/v1/agent/conversations/${s.conversationB}${suffix}`;

export const scopeProbes: Record<string, { agent: Probe; admin?: Probe }> = {
  'GET /api/v1/agent/me': listWithout(
    () => '/api/v1/agent/me',
    (s) => s.clusterB,
  ),
  'GET /api/v1/agent/conversations': listWithout(
    () => '/api/v1/agent/conversations?limit=100',
    (s) => s.conversationB,
  ),
  'GET /api/v1/agent/conversations/:id': {
    agent: conversationNotFound(conv(''), 'get'),
    admin: async (client, s, key) =>
      expect(await json(await client.get(conv('')(s)), key)).toContain(s.conversationB),
  },
  'GET /api/v1/agent/conversations/:id/messages': {
    agent: conversationNotFound(conv('/messages'), 'get'),
    admin: async (client, s, key) =>
      expect(await json(await client.get(conv('/messages')(s)), key)).toContain(s.inboundB),
  },
  'POST /api/v1/agent/conversations/:id/read': { agent: conversationNotFound(conv('/read')) },
  'POST /api/v1/agent/conversations/:id/assign': {
    agent: conversationNotFound(conv('/assign'), 'post', { userId: 'agent-a' }),
  },
  'POST /api/v1/agent/conversations/:id/unassign': { agent: conversationNotFound(conv('/unassign')) },
  'POST /api/v1/agent/conversations/:id/resolve': { agent: conversationNotFound(conv('/resolve')) },
  'POST /api/v1/agent/conversations/:id/reopen': { agent: conversationNotFound(conv('/reopen')) },
  'POST /api/v1/agent/conversations/:id/handback': { agent: conversationNotFound(conv('/handback')) },
  'POST /api/v1/agent/conversations/:id/replies': {
    agent: conversationNotFound(conv('/replies'), 'post', { text: 'hello from the wrong cluster' }),
  },
  'GET /api/v1/leads': listWithout(
    () => '/api/v1/leads',
    (s) => s.leadB,
  ),
  'POST /api/v1/leads': {
    agent: async (client, s, key) =>
      notFound(
        await client.post('/api/v1/leads', { json: { name: 'Eve', clusterId: s.clusterB } }),
        'messaging.cluster.not_found',
        key,
      ),
  },
  'GET /api/v1/leads/v2': listWithout(
    () => '/api/v1/leads/v2?limit=100',
    (s) => s.leadB,
  ),
  'GET /api/v1/leads/v2/summary': {
    agent: async (client, s, key) => {
      const range = summaryRange();
      const text = await json(await client.get(`/api/v1/leads/v2/summary?${range}`), key);
      expect(text).not.toContain(s.clusterB);
    },
    admin: async (client, s, key) => {
      const text = await json(await client.get(`/api/v1/leads/v2/summary?${summaryRange()}`), key);
      expect(text).toContain(s.clusterB);
    },
  },
  'GET /api/v1/leads/v2/export.csv': listWithout(
    () => '/api/v1/leads/v2/export.csv',
    () => 'bianca@example.com',
  ),
  'GET /api/v1/leads/v2/:id': {
    agent: async (client, s, key) =>
      notFound(await client.get(`/api/v1/leads/v2/${s.leadB}`), 'messaging.lead.not_found', key),
    admin: async (client, s, key) =>
      expect(await json(await client.get(`/api/v1/leads/v2/${s.leadB}`), key)).toContain(s.leadB),
  },
  'PATCH /api/v1/leads/v2/:id': {
    agent: async (client, s, key) =>
      notFound(
        await client.patch(`/api/v1/leads/v2/${s.leadB}`, {
          json: { notes: 'x' },
          headers: { 'if-match': '*' },
        }),
        'messaging.lead.not_found',
        key,
      ),
  },
  'PUT /api/v1/messages/:id/feedback': {
    agent: async (client, s, key) =>
      notFound(
        await client.put(`/api/v1/messages/${s.replyB}/feedback`, { json: { rating: 'up' } }),
        'messaging.message.not_found',
        key,
      ),
  },
  'GET /api/v1/messages/:id/feedback': {
    agent: async (client, s, key) =>
      notFound(await client.get(`/api/v1/messages/${s.replyB}/feedback`), 'messaging.message.not_found', key),
    admin: async (client, s, key) =>
      expect(await json(await client.get(`/api/v1/messages/${s.replyB}/feedback`), key)).toContain('agent-b'),
  },
  'DELETE /api/v1/messages/:id/feedback': {
    agent: async (client, s, key) =>
      notFound(
        await client.delete(`/api/v1/messages/${s.replyB}/feedback`),
        'messaging.message.not_found',
        key,
      ),
  },
  'GET /api/v1/messages/feedback': listWithout(
    () => '/api/v1/messages/feedback',
    (s) => s.replyB,
  ),
  'GET /api/v1/messages/feedback/gold-set': listWithout(
    () => '/api/v1/messages/feedback/gold-set',
    () => 'mau daftar kak',
  ),
  ...faqProbes(),
  ...followUpProbes(),
  ...kbProbes(),
  ...kbEvaluationProbes(),
};

/** An agent's call to a route that is for admins: 403 `messaging.staff.admin_required`. */
function adminOnly(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: unknown): Probe {
  return async (client, _s, key) => {
    const res = await client[method](path, body === undefined ? undefined : { json: body });
    const text = await res.text();
    expect(res.status, `${key}: ${text}`).toBe(403);
    expect((JSON.parse(text) as { code: string }).code, key).toBe('messaging.staff.admin_required');
  };
}

/**
 * The knowledge base belongs to no cluster (README, "Knowledge base"): every staff member reads it, only
 * admins change it.
 */
function kbProbes(): Record<string, { agent: Probe }> {
  const none = '00000000-0000-4000-8000-000000000000';
  const document = { title: 'T', body: 'B', language: 'id' };
  const read =
    (path: string): Probe =>
    async (client, _s, key) =>
      void (await json(await client.get(path), key));
  return {
    'POST /api/v1/kb/documents': { agent: adminOnly('post', '/api/v1/kb/documents', document) },
    'GET /api/v1/kb/documents': { agent: read('/api/v1/kb/documents') },
    'GET /api/v1/kb/documents/:id': {
      agent: async (client, _s, key) =>
        notFound(await client.get(`/api/v1/kb/documents/${none}`), 'messaging.kb.document_not_found', key),
    },
    'GET /api/v1/kb/documents/:id/versions': {
      agent: async (client, _s, key) =>
        notFound(
          await client.get(`/api/v1/kb/documents/${none}/versions`),
          'messaging.kb.document_not_found',
          key,
        ),
    },
    'PATCH /api/v1/kb/documents/:id': {
      agent: adminOnly('patch', `/api/v1/kb/documents/${none}`, { title: 'U' }),
    },
    'DELETE /api/v1/kb/documents/:id': { agent: adminOnly('delete', `/api/v1/kb/documents/${none}`) },
    'GET /api/v1/kb/sources': { agent: read('/api/v1/kb/sources') },
    // Gaps show customers' words from every cluster: admins only (README, "Gaps").
    'GET /api/v1/kb/gaps': { agent: adminOnly('get', '/api/v1/kb/gaps') },
    'POST /api/v1/kb/gaps/refresh': { agent: adminOnly('post', '/api/v1/kb/gaps/refresh') },
    'POST /api/v1/kb/import': {
      agent: adminOnly('post', '/api/v1/kb/import', {
        items: [{ filename: 'a.md', content: '# A', language: 'id' }],
      }),
    },
  };
}

/**
 * The KB evaluation belongs to no cluster (README, "Knowledge base", "Evaluation"): every agent reads the set
 * and the runs; only admins change the set, seed it or start a run.
 */
function kbEvaluationProbes(): Record<string, { agent: Probe }> {
  const none = '00000000-0000-4000-8000-000000000000';
  const items = '/api/v1/kb/evaluation/items';
  const runs = '/api/v1/kb/evaluation/runs';
  const item = { question: 'q', language: 'id', expectedIntent: 'generalInfo' };
  return {
    [`GET ${items}`]: { agent: async (client, _s, key) => void (await json(await client.get(items), key)) },
    [`POST ${items}`]: { agent: adminOnly('post', items, item) },
    [`GET ${items}/:id`]: {
      agent: async (client, _s, key) =>
        notFound(await client.get(`${items}/${none}`), 'messaging.kb.evaluation_item_not_found', key),
    },
    [`PUT ${items}/:id`]: { agent: adminOnly('put', `${items}/${none}`, item) },
    [`DELETE ${items}/:id`]: { agent: adminOnly('delete', `${items}/${none}`) },
    'POST /api/v1/kb/evaluation/seed': { agent: adminOnly('post', '/api/v1/kb/evaluation/seed') },
    [`POST ${runs}`]: { agent: adminOnly('post', runs) },
    [`GET ${runs}`]: { agent: async (client, _s, key) => void (await json(await client.get(runs), key)) },
    [`GET ${runs}/:id`]: {
      agent: async (client, _s, key) =>
        notFound(await client.get(`${runs}/${none}`), 'messaging.kb.evaluation_run_not_found', key),
    },
  };
}

/**
 * Follow-ups (README, "Follow-ups"): rules are for admins; an agent sees and acts on the queue of their clusters'
 * conversations only, and cannot trigger one on another cluster's conversation.
 */
function followUpProbes(): Record<string, { agent: Probe }> {
  const none = '00000000-0000-4000-8000-000000000000';
  const adminOnly =
    (method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown): Probe =>
    async (client, _s, key) => {
      const res = await client[method](path, body === undefined ? undefined : { json: body });
      const text = await res.text();
      expect(res.status, `${key}: ${text}`).toBe(403);
      expect((JSON.parse(text) as { code: string }).code, key).toBe('messaging.staff.admin_required');
    };
  const rule = { kind: 'no_reply', delayHours: 24, text: 'Masih tertarik?', enabled: true };
  return {
    'GET /api/v1/follow-up/rules': { agent: adminOnly('get', '/api/v1/follow-up/rules') },
    'POST /api/v1/follow-up/rules': { agent: adminOnly('post', '/api/v1/follow-up/rules', rule) },
    'GET /api/v1/follow-up/rules/:id': { agent: adminOnly('get', `/api/v1/follow-up/rules/${none}`) },
    'PUT /api/v1/follow-up/rules/:id': { agent: adminOnly('put', `/api/v1/follow-up/rules/${none}`, rule) },
    'DELETE /api/v1/follow-up/rules/:id': { agent: adminOnly('delete', `/api/v1/follow-up/rules/${none}`) },
    'GET /api/v1/follow-up/queue': {
      agent: async (client, s, key) =>
        expect(
          await json(await client.get(`/api/v1/follow-up/queue?conversationId=${s.conversationB}`), key),
        ).not.toContain(s.conversationB),
    },
    'POST /api/v1/follow-up/queue/:id/cancel': {
      agent: async (client, _s, key) =>
        notFound(
          await client.post(`/api/v1/follow-up/queue/${none}/cancel`, { json: {} }),
          'messaging.follow_up.not_found',
          key,
        ),
    },
    'POST /api/v1/follow-up/trigger': {
      agent: async (client, s, key) =>
        notFound(
          await client.post('/api/v1/follow-up/trigger', {
            json: { conversationId: s.conversationB, text: 'Halo' },
          }),
          'messaging.conversation.not_found',
          key,
        ),
    },
  };
}

/**
 * The FAQ belongs to no cluster: every agent reads it, and only admins change it, run its sync or see its
 * conflicts and history (README, "FAQ").
 */
function faqProbes(): Record<string, { agent: Probe }> {
  const noEntry = '00000000-0000-4000-8000-000000000000';
  const forbidden =
    (method: 'get' | 'post' | 'patch' | 'delete', path: string, body?: unknown): Probe =>
    async (client, _s, key) => {
      const res = await client[method](path, body === undefined ? undefined : { json: body });
      const text = await res.text();
      expect(res.status, `${key}: ${text}`).toBe(403);
      expect((JSON.parse(text) as { code: string }).code, key).toBe('messaging.staff.admin_required');
    };
  const entry = { questions: ['q'], answer: 'a', language: 'id' };
  return {
    'GET /api/v1/faq': {
      agent: async (client, _s, key) => void (await json(await client.get('/api/v1/faq'), key)),
    },
    'GET /api/v1/faq/:id': {
      agent: async (client, _s, key) =>
        notFound(await client.get(`/api/v1/faq/${noEntry}`), 'messaging.faq.not_found', key),
    },
    'POST /api/v1/faq': { agent: forbidden('post', '/api/v1/faq', entry) },
    'PATCH /api/v1/faq/:id': { agent: forbidden('patch', `/api/v1/faq/${noEntry}`, { answer: 'b' }) },
    'DELETE /api/v1/faq/:id': { agent: forbidden('delete', `/api/v1/faq/${noEntry}`) },
    'GET /api/v1/faq/conflicts': { agent: forbidden('get', '/api/v1/faq/conflicts') },
    'POST /api/v1/faq/conflicts/:id/resolve': {
      agent: forbidden('post', `/api/v1/faq/conflicts/${noEntry}/resolve`, { keep: 'local' }),
    },
    'POST /api/v1/faq/sync': { agent: forbidden('post', '/api/v1/faq/sync') },
    'GET /api/v1/faq/sync/runs': { agent: forbidden('get', '/api/v1/faq/sync/runs') },
  };
}

/** The last 30 days, whatever today is. */
function summaryRange(): string {
  const to = new Date();
  const from = new Date(to.getTime() - 30 * 24 * 3600_000);
  return `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(new Date(to.getTime() + 3600_000).toISOString())}`;
}
