/**
 * Every change made through the staff API is audited with who made it, in every phase of the gate: in
 * `disabled` the gate writes nothing, so the staff API's own `messaging.staff.write` rows are the record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { messagingEnv, startProviderStub, type ProviderStub } from '../../../test/support/messaging.ts';
import { ADMIN, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { seedTwoClusters, type Seeded } from './staff-scope-probes.ts';

let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let seeded: Seeded;
let admin: StaffClient;

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { ...messagingEnv(provider), ...gateEnv('disabled') },
  });
  seeded = await seedTwoClusters(db.pool);
  admin = staffClient(gateway, ADMIN);
});
afterAll(async () => {
  await gateway?.close();
  await provider?.close();
  await db?.drop();
});

async function auditRows(requestId: string) {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ kind: string; actor: string; payload: Record<string, unknown> }>(
    'SELECT kind, actor, payload FROM audit_log WHERE request_id = $1',
    [requestId],
  );
  return rows;
}

describe('staff writes in API_AUTH_MODE=disabled', () => {
  it('each change leaves one messaging.staff.write row naming the staff member, the route and the ids, not the body', async () => {
    const conversation = `/api/v1/agent/conversations/${seeded.conversationB}`;
    const detail = await admin.get(`/api/v1/leads/v2/${seeded.leadB}`);
    const etag = detail.headers.get('etag') as string;
    const writes: Array<[string, string, unknown, Record<string, string>?]> = [
      ['post', `${conversation}/read`, {}],
      ['post', `${conversation}/assign`, { userId: 'agent-b' }],
      ['post', `${conversation}/replies`, { text: 'A private answer' }],
      ['post', `${conversation}/handback`, {}],
      ['post', `${conversation}/resolve`, {}],
      ['patch', `/api/v1/leads/v2/${seeded.leadB}`, { notes: 'called back' }, { 'if-match': etag }],
      ['post', '/api/v1/leads', { name: 'Wulan Sari', email: 'wulan.sari@example.com' }],
      ['put', `/api/v1/messages/${seeded.replyB}/feedback`, { rating: 'up' }],
      ['delete', `/api/v1/messages/${seeded.replyB}/feedback`, undefined],
    ];
    for (const [verb, path, json, headers] of writes) {
      const requestId = `audit-${verb}-${path.length}-${Math.random().toString(36).slice(2)}`;
      const res = await admin[verb as 'post'](path, {
        ...(json === undefined ? {} : { json }),
        headers: { 'x-request-id': requestId, ...headers },
      });
      expect(res.status, `${verb} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
      const rows = await auditRows(requestId);
      expect(rows, `${verb} ${path}`).toHaveLength(1);
      expect(rows[0]).toMatchObject({ kind: 'messaging.staff.write', actor: ADMIN.sub });
      expect(rows[0]?.payload).toMatchObject({ method: verb.toUpperCase(), status: res.status });
      expect(JSON.stringify(rows[0]?.payload)).not.toMatch(/private answer|called back|wulan\.sari/i);
    }
  });

  it('a refused change and a read leave none', async () => {
    const refused = await admin.post(
      '/api/v1/agent/conversations/00000000-0000-4000-8000-000000000000/read',
      {
        json: {},
        headers: { 'x-request-id': 'audit-refused' },
      },
    );
    expect(refused.status).toBe(404);
    expect(await auditRows('audit-refused')).toEqual([]);
    await admin.get('/api/v1/agent/conversations', { headers: { 'x-request-id': 'audit-read' } });
    expect(await auditRows('audit-read')).toEqual([]);
  });
});
