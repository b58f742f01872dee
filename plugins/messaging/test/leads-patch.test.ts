/**
 * `PATCH /api/v1/leads/v2/:id` (plugins/messaging/README.md, "Staff API", "Leads"): optimistic concurrency
 * with ETag / If-Match under truly parallel requests, validation exactly as lead capture validates with
 * nothing half-written, the status recomputed with the fields, and an override that survives the capture
 * upsert of a later message (through the real webhook and queue).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { seedLead } from '../../../test/support/leads.ts';
import { postWebhook, textMessage } from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

const CLUSTER_NUMBER = '106540352249917';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let admin: StaffClient;
let agentA: StaffClient;
let agentB: StaffClient;
let clusterA: string;
let clusterB: string;

beforeAll(async () => {
  ({ db, gateway, admin, stop } = await startStaffApiHarness());
  clusterA = await messagingRows.cluster(db.pool, ['agent-a']);
  clusterB = await messagingRows.cluster(db.pool, ['agent-b']);
  await db.pool.query('UPDATE messaging_clusters SET phone_number_id = $1 WHERE id = $2', [
    CLUSTER_NUMBER,
    clusterA,
  ]);
  agentA = staffClient(gateway, agent('agent-a'));
  agentB = staffClient(gateway, agent('agent-b'));
}, 60_000);
afterAll(() => stop?.());

interface Lead {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  status: string;
  computedStatus: string;
  statusOverride: string | null;
  notes: string | null;
  version: number;
}

const path = (id: string) => `/api/v1/leads/v2/${id}`;

async function read(
  client: StaffClient,
  id: string,
): Promise<{ lead: Lead; etag: string; history: History[] }> {
  const res = await client.get(path(id));
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const body = JSON.parse(text) as { lead: Lead; history: History[] };
  return { lead: body.lead, history: body.history, etag: res.headers.get('etag') as string };
}

interface History {
  status: string;
  computedStatus: string;
  statusOverride: string | null;
  changedBy: string | null;
}

async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.code).toBe(code);
  return body;
}

/** The stored row, straight from the table. */
async function row(id: string): Promise<Record<string, unknown>> {
  const { rows } = await db.pool.query('SELECT * FROM messaging_leads WHERE id = $1', [id]);
  return rows[0] as Record<string, unknown>;
}

const captured = (name = 'Budi Santoso') =>
  seedLead(db.pool, {
    clusterId: clusterA,
    name,
    email: 'budi@example.com',
    createdAt: new Date('2026-04-01T08:00:00Z'),
  });

describe('PATCH /api/v1/leads/v2/:id', () => {
  it('applies the changes to the version named, recomputes the status, and answers the new ETag', async () => {
    const id = await captured();
    const { etag } = await read(agentA, id);
    const res = await agentA.patch(path(id), {
      json: { phone: '0812 3456 7890', notes: 'Called; visiting Friday.' },
      headers: { 'if-match': etag },
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const lead = JSON.parse(text) as Lead;
    expect(lead).toMatchObject({
      phone: '6281234567890',
      status: 'qualified',
      computedStatus: 'qualified',
      notes: 'Called; visiting Friday.',
      version: 2,
    });
    expect(res.headers.get('etag')).toBe(`"${id}.2"`);
    const after = await read(agentA, id);
    expect(after.etag).toBe(`"${id}.2"`);
    expect(after.history.map((h) => [h.status, h.changedBy])).toEqual([
      ['captured', null],
      ['qualified', 'agent-a'],
    ]);
  });

  it('of two concurrent patches with the same ETag, applies exactly one and answers the other 412', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await captured();
      const { etag } = await read(admin, id);
      const bodies = [
        { notes: `first ${round}`, statusOverride: 'contacted' },
        { notes: `second ${round}`, statusOverride: 'disqualified' },
      ];
      const responses = await Promise.all(
        bodies.map((json) => admin.patch(path(id), { json, headers: { 'if-match': etag } })),
      );
      const statuses = responses.map((res) => res.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, 412]);
      const winner = responses.findIndex((res) => res.status === 200);
      const loser = responses[1 - winner] as Response;
      await problem(loser, 412, 'messaging.lead.precondition_failed');
      const stored = await row(id);
      expect(stored).toMatchObject({
        notes: bodies[winner]?.notes,
        status_override: bodies[winner]?.statusOverride,
        version: 2,
      });
    }
  });

  it('needs If-Match (428), refuses a stale or weak tag or another lead’s (412), and takes * for any version', async () => {
    const id = await captured();
    const other = await captured('Citra');
    await problem(
      await agentA.patch(path(id), { json: { notes: 'x' } }),
      428,
      'messaging.lead.precondition_required',
    );
    for (const stale of [
      `"${id}.7"`,
      `W/"${id}.1"`,
      `"${other}.1"`,
      'garbage',
      `"${id}.1`,
      '""',
      `"${id}.99999999999"`,
    ]) {
      await problem(
        await agentA.patch(path(id), { json: { notes: 'x' }, headers: { 'if-match': stale } }),
        412,
        'messaging.lead.precondition_failed',
      );
    }
    expect(await row(id)).toMatchObject({ notes: null, version: 1 });
    const listed = await agentA.patch(path(id), {
      json: { notes: 'listed' },
      headers: { 'if-match': `"${other}.1", "${id}.1"` },
    });
    expect(listed.status).toBe(200);
    const any = await agentA.patch(path(id), { json: { notes: 'any' }, headers: { 'if-match': '*' } });
    expect(any.status).toBe(200);
    expect(await row(id)).toMatchObject({ notes: 'any', version: 3 });
  });

  it("is 404 for another cluster's lead and for none, whatever the If-Match, and changes nothing", async () => {
    const id = await captured();
    for (const ifMatch of ['*', `"${id}.1"`, `"${id}.5"`]) {
      await problem(
        await agentB.patch(path(id), { json: { notes: 'x' }, headers: { 'if-match': ifMatch } }),
        404,
        'messaging.lead.not_found',
      );
    }
    await problem(
      await admin.patch(path('00000000-0000-4000-8000-000000000000'), {
        json: { notes: 'x' },
        headers: { 'if-match': '*' },
      }),
      404,
      'messaging.lead.not_found',
    );
    expect(await row(id)).toMatchObject({ notes: null, version: 1 });
    await seedLead(db.pool, { clusterId: clusterB, name: 'Bea' });
  });

  it('refuses what lead capture would refuse, naming the field, and writes nothing of the request', async () => {
    const id = await captured();
    const before = await row(id);
    const { etag } = await read(agentA, id);
    for (const [json, field] of [
      [{ email: 'budi@' }, 'body.email'],
      [{ name: 'Budi Baru', email: 'budi at example.com' }, 'body.email'],
      [{ email: 'budi@example' }, 'body.email'],
      [{ email: 'x'.repeat(321) }, 'body.email'],
      [{ email: 42 }, 'body.email'],
      [{ phone: '+1 415 555 0100', notes: 'fine' }, 'body.phone'],
      [{ phone: '12345' }, 'body.phone'],
      [{ name: 'saya mau daftar' }, 'body.name'],
      [{ name: 'R2-D2' }, 'body.name'],
      [{ statusOverride: 'won' }, 'body.statusOverride'],
      [{ notes: 'x'.repeat(10_001) }, 'body.notes'],
      [{}, 'body'],
      [{ version: 3 }, 'body'],
      [{ status: 'qualified' }, 'body'],
    ] as const) {
      const body = await problem(
        await agentA.patch(path(id), { json, headers: { 'if-match': etag } }),
        400,
        'validation.failed',
      );
      expect(JSON.stringify(body.errors), JSON.stringify(json)).toContain(`"path":"${field}`);
    }
    expect(await row(id)).toEqual(before);
  });

  it('stores the fields in the form capture stores them, and clears a field with null', async () => {
    const id = await captured();
    const { etag } = await read(admin, id);
    const res = await admin.patch(path(id), {
      json: { name: '  dewi   lestari ', email: 'Dewi.L@Example.CO.ID', phone: '+62 (0)812-1111-2222' },
      headers: { 'if-match': etag },
    });
    expect(await res.json()).toMatchObject({
      name: 'Dewi Lestari',
      email: 'Dewi.L@example.co.id',
      phone: '6281211112222',
      status: 'qualified',
    });
    const cleared = await admin.patch(path(id), {
      json: { email: null, notes: null },
      headers: { 'if-match': res.headers.get('etag') as string },
    });
    expect(await cleared.json()).toMatchObject({
      email: null,
      status: 'incomplete',
      computedStatus: 'incomplete',
    });
  });

  it('shows an override until it is cleared, recording who set it', async () => {
    const id = await captured();
    let { etag } = await read(agentA, id);
    const set = await agentA.patch(path(id), {
      json: { statusOverride: 'converted' },
      headers: { 'if-match': etag },
    });
    expect(await set.json()).toMatchObject({
      status: 'converted',
      computedStatus: 'captured',
      statusOverride: 'converted',
    });
    etag = set.headers.get('etag') as string;
    const cleared = await admin.patch(path(id), {
      json: { statusOverride: null },
      headers: { 'if-match': etag },
    });
    expect(await cleared.json()).toMatchObject({ status: 'captured', statusOverride: null });
    expect((await read(admin, id)).history).toEqual([
      expect.objectContaining({ status: 'captured', statusOverride: null, changedBy: null }),
      expect.objectContaining({
        status: 'converted',
        computedStatus: 'captured',
        statusOverride: 'converted',
        changedBy: 'agent-a',
      }),
      expect.objectContaining({ status: 'captured', statusOverride: null, changedBy: ADMIN.sub }),
    ]);
  });
});

describe('an override and the capture upsert', () => {
  /** One message from the contact; resolves once the queue has processed it. */
  async function say(from: string, text: string): Promise<void> {
    const res = await postWebhook(gateway, textMessage({ from, text, phoneNumberId: CLUSTER_NUMBER }));
    expect(res.status).toBe(200);
    await eventually(`"${text}" processed`, 30_000, async () => {
      const { rows } = await db.pool.query(
        "SELECT 1 FROM messaging_messages WHERE text = $1 AND processing_status = 'processed'",
        [text],
      );
      return rows.length === 1 ? true : undefined;
    });
  }

  it('keeps the override when a later message changes the fields, and recomputes the computed status', async () => {
    const from = '6281277700001';
    await say(from, 'nama saya Rina Kartika');
    const leadId = await eventually('the lead', 10_000, async () => {
      const { rows } = await db.pool.query<{ id: string }>(
        `SELECT l.id FROM messaging_leads l JOIN messaging_conversations c ON c.id = l.conversation_id
          WHERE c.contact_phone = $1`,
        [from],
      );
      return rows[0]?.id;
    });
    const first = await read(agentA, leadId);
    expect(first.lead).toMatchObject({ name: 'Rina Kartika', email: null, status: 'incomplete' });

    const patched = await agentA.patch(path(leadId), {
      json: { statusOverride: 'contacted' },
      headers: { 'if-match': first.etag },
    });
    expect(patched.status).toBe(200);

    await say(from, 'email saya rina.k@example.com');
    const after = await read(agentA, leadId);
    expect(after.lead).toMatchObject({
      email: 'rina.k@example.com',
      status: 'contacted',
      statusOverride: 'contacted',
      computedStatus: 'qualified',
    });
    // The upsert changed the lead: the ETag read before it is stale.
    await problem(
      await agentA.patch(path(leadId), {
        json: { notes: 'x' },
        headers: { 'if-match': patched.headers.get('etag') as string },
      }),
      412,
      'messaging.lead.precondition_failed',
    );
    const cleared = await agentA.patch(path(leadId), {
      json: { statusOverride: null },
      headers: { 'if-match': after.etag },
    });
    expect(await cleared.json()).toMatchObject({ status: 'qualified', computedStatus: 'qualified' });
    expect((await read(agentA, leadId)).history.map((h) => [h.status, h.changedBy])).toEqual([
      ['incomplete', null],
      ['contacted', 'agent-a'],
      ['qualified', 'agent-a'],
    ]);
  });
});
