/**
 * Leads v2 reads and the legacy leads API (plugins/messaging/README.md, "Staff API", "Leads"), through
 * signed requests to a gateway in enforce mode on PostgreSQL: the list's filters, sorts and keyset walk,
 * the summary in a time zone, the detail, the legacy list and create with their deprecation headers, and
 * what an agent of one cluster can never see of another's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { seedLead, seedManyLeads } from '../../../test/support/leads.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let admin: StaffClient;
let agentA: StaffClient;
let agentB: StaffClient;
let agentAB: StaffClient;
let loner: StaffClient;
let clusterA: string;
let clusterB: string;

/** Leads of the fixture, by name. */
const ids: Record<string, string> = {};
const T0 = new Date('2026-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

beforeAll(async () => {
  ({ db, gateway, admin, stop } = await startStaffApiHarness());
  clusterA = await messagingRows.cluster(db.pool, ['agent-a', 'agent-ab']);
  clusterB = await messagingRows.cluster(db.pool, ['agent-b', 'agent-ab']);
  agentA = staffClient(gateway, agent('agent-a'));
  agentB = staffClient(gateway, agent('agent-b'));
  agentAB = staffClient(gateway, agent('agent-ab'));
  loner = staffClient(gateway, agent('agent-without-cluster'));
  const seeds = {
    anna: {
      clusterId: clusterA,
      name: 'Anna Lee',
      email: 'anna@example.com',
      phone: '6281200000001',
      createdAt: at(1),
    },
    budi: {
      clusterId: clusterA,
      name: 'Budi Santoso',
      email: 'budi@example.com',
      createdAt: at(2),
      updatedAt: at(50),
    },
    cici: { clusterId: clusterA, name: 'Cici', createdAt: at(3) },
    dedi: {
      clusterId: clusterA,
      source: 'manual' as const,
      name: 'Dedi 100%_off',
      email: 'dedi@example.com',
      statusOverride: 'converted',
      createdAt: at(4),
    },
    bianca: {
      clusterId: clusterB,
      name: 'Bianca B',
      email: 'bianca@example.com',
      phone: '6281299999999',
      createdAt: at(5),
    },
    nobody: { clusterId: null, name: 'Nadia Nowhere', email: 'nadia@example.com', createdAt: at(6) },
  };
  for (const [name, seed] of Object.entries(seeds)) ids[name] = await seedLead(db.pool, seed);
}, 60_000);
afterAll(() => stop?.());

interface Lead {
  id: string;
  name: string | null;
  status: string;
  computedStatus: string;
  clusterId: string | null;
  source: string;
  [field: string]: unknown;
}
interface Page {
  items: Lead[];
  nextCursor: string | null;
}

async function ok<T>(res: Response): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as T;
}

async function problem(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(typeof body.requestId).toBe('string');
  return body;
}

/** The fixture names of a page's leads, in order. */
function names(page: Page): string[] {
  const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return page.items.map((lead) => byId.get(lead.id) ?? `other:${lead.name}`);
}

const list = async (client: StaffClient, query = '') =>
  names(
    await ok<Page>(
      await client.get(`/api/v1/leads/v2?${query.includes('createdFrom') ? '' : `${fixtureRange}&`}${query}`),
    ),
  );

/** The fixture's hour (other tests add leads outside it). */
const fixtureRange = `createdFrom=${encodeURIComponent(T0.toISOString())}&createdTo=${encodeURIComponent(at(60).toISOString())}`;

describe('GET /api/v1/leads/v2', () => {
  it("shows an agent their clusters' leads only, and an admin every lead, newest first", async () => {
    expect(await list(agentA)).toEqual(['dedi', 'cici', 'budi', 'anna']);
    expect(await list(agentB)).toEqual(['bianca']);
    expect(await list(agentAB)).toEqual(['bianca', 'dedi', 'cici', 'budi', 'anna']);
    expect(await list(loner)).toEqual([]);
    expect(await list(admin)).toEqual(['nobody', 'bianca', 'dedi', 'cici', 'budi', 'anna']);
  });

  it('answers the fields of a lead, with the effective and the computed status', async () => {
    const page = await ok<Page>(await admin.get(`/api/v1/leads/v2?q=dedi`));
    expect(page.items).toEqual([
      {
        id: ids.dedi,
        conversationId: null,
        clusterId: clusterA,
        source: 'manual',
        name: 'Dedi 100%_off',
        email: 'dedi@example.com',
        phone: null,
        status: 'converted',
        computedStatus: 'captured',
        statusOverride: 'converted',
        notes: null,
        version: 1,
        createdAt: at(4).toISOString(),
        updatedAt: at(4).toISOString(),
        capturedAt: null,
      },
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it('filters by effective status (a comma list or the parameter repeated), cluster, source, phone and email', async () => {
    expect(await list(admin, 'status=captured,converted')).toEqual(['nobody', 'dedi', 'budi']);
    expect(await list(admin, 'status=qualified&status=incomplete')).toEqual(['bianca', 'cici', 'anna']);
    expect(await list(admin, 'status=captured&status=captured,captured')).toEqual(['nobody', 'budi']);
    expect(await list(admin, `cluster=${clusterB}`)).toEqual(['bianca']);
    // A cluster outside the caller's scope, or none at all, is not found, as in the inbox.
    await problem(
      await agentA.get(`/api/v1/leads/v2?cluster=${clusterB}`),
      404,
      'messaging.cluster.not_found',
    );
    await problem(
      await admin.get('/api/v1/leads/v2?cluster=00000000-0000-4000-8000-000000000000'),
      404,
      'messaging.cluster.not_found',
    );
    expect(await list(admin, 'source=manual')).toEqual(['dedi']);
    expect(await list(admin, 'hasPhone=true')).toEqual(['bianca', 'anna']);
    expect(await list(agentA, 'hasPhone=false&hasEmail=true')).toEqual(['dedi', 'budi']);
    expect(await list(admin, 'hasEmail=false')).toEqual(['cici']);
  });

  it('filters by creation and change ranges (from inclusive, to exclusive; any offset)', async () => {
    const range = (from: Date, to: Date, field = 'created') =>
      `${field}From=${encodeURIComponent(from.toISOString())}&${field}To=${encodeURIComponent(to.toISOString())}`;
    expect(await list(admin, range(at(2), at(4)))).toEqual(['cici', 'budi']);
    expect(await list(admin, range(at(10), at(51), 'updated'))).toEqual(['budi']);
    // 07:03 at +07:00 is 00:03 UTC.
    expect(
      await list(
        admin,
        `createdFrom=${encodeURIComponent('2026-03-01T07:03:00+07:00')}&createdTo=${encodeURIComponent('2026-03-01T00:05:00Z')}`,
      ),
    ).toEqual(['dedi', 'cici']);
  });

  it('searches name, email and phone as typed text, never as a pattern', async () => {
    expect(await list(admin, 'q=ANNA')).toEqual(['anna']);
    expect(await list(admin, 'q=example.com')).toEqual(['nobody', 'bianca', 'dedi', 'budi', 'anna']);
    expect(await list(admin, 'q=6281299')).toEqual(['bianca']);
    expect(await list(admin, `q=${encodeURIComponent('100%_')}`)).toEqual(['dedi']);
    // % and _ match only themselves: no name has "n%a" or "a_n".
    expect(await list(admin, `q=${encodeURIComponent('n%a')}`)).toEqual([]);
    expect(await list(admin, `q=${encodeURIComponent('a_n')}`)).toEqual([]);
    expect(await list(admin, `q=${encodeURIComponent('\\')}`)).toEqual([]);
    expect(await list(agentB, 'q=anna')).toEqual([]);
  });

  it('sorts by creation or change, either way, ties broken by id', async () => {
    expect(await list(agentA, 'sort=createdAt')).toEqual(['anna', 'budi', 'cici', 'dedi']);
    expect((await list(agentA, 'sort=-updatedAt'))[0]).toBe('budi');
    expect((await list(agentA, 'sort=updatedAt')).at(-1)).toBe('budi');
  });

  it('refuses a cursor of another sort, or one it did not hand out', async () => {
    const first = await ok<Page>(await agentA.get('/api/v1/leads/v2?limit=1&sort=createdAt'));
    expect(first.nextCursor).toEqual(expect.any(String));
    const cursor = encodeURIComponent(first.nextCursor as string);
    const next = await ok<Page>(await agentA.get(`/api/v1/leads/v2?limit=1&sort=createdAt&cursor=${cursor}`));
    expect(names(next)).toEqual(['budi']);
    await problem(
      await agentA.get(`/api/v1/leads/v2?limit=1&cursor=${cursor}`),
      400,
      'messaging.cursor.invalid',
    );
    await problem(
      await agentA.get(`/api/v1/leads/v2?sort=-updatedAt&cursor=${cursor}`),
      400,
      'messaging.cursor.invalid',
    );
    // Well-formed, but positions PostgreSQL could not read (year 0, 30 February) or of another list.
    const crafted = (kind: string, position: unknown) =>
      Buffer.from(JSON.stringify({ k: kind, p: position }), 'utf8').toString('base64url');
    const someId = ids.anna as string;
    for (const cursor of [
      crafted('leads:-createdAt', ['0000-01-01T00:00:00.000000Z', someId]),
      crafted('leads:-createdAt', ['2026-02-30T00:00:00.000000Z', someId]),
      crafted('leads:-createdAt', ['2026-02-28T00:00:00.000000Z', 'x']),
      crafted('leads:-createdAt', ['2026-02-28T00:00:00.000Z', someId]),
      crafted('inbox', ['2026-02-28T00:00:00.000000Z', someId]),
    ]) {
      await problem(await agentA.get(`/api/v1/leads/v2?cursor=${cursor}`), 400, 'messaging.cursor.invalid');
    }
    const fine = crafted('leads:-createdAt', ['2026-03-01T00:02:30.000000Z', someId]);
    expect(
      names(await ok<Page>(await agentA.get(`/api/v1/leads/v2?cursor=${fine}&${fixtureRange}`))),
    ).toEqual(['budi', 'anna']);
    for (const bad of [
      'x',
      'eyJrIjoibGVhZHM6LWNyZWF0ZWRBdCIsInAiOlsiMjAyNi0wMi0zMFQwMDowMDowMC4wMDAwMDBaIiwiMSJdfQ',
      '%00',
    ]) {
      const res = await agentA.get(`/api/v1/leads/v2?cursor=${bad}`);
      expect(res.status).toBe(400);
    }
  });

  it('refuses bad input with a problem naming the parameter', async () => {
    for (const [query, path] of [
      ['status=won', 'query.status.0'],
      ['status=', 'query.status.0'],
      ['createdFrom=2026-03-01T00:00:00', 'query.createdFrom'],
      ['createdFrom=yesterday', 'query.createdFrom'],
      [
        `createdFrom=${encodeURIComponent('2026-03-02T00:00:00Z')}&createdTo=${encodeURIComponent('2026-03-01T00:00:00Z')}`,
        'query.createdTo',
      ],
      // One end of a range bad, the other good: the range check must not read the bad one.
      [
        `createdFrom=2026-03-01T0%270:00:00Z&createdTo=${encodeURIComponent('2026-03-01T00:00:00Z')}`,
        'query.createdFrom',
      ],
      [`updatedFrom=${encodeURIComponent('2026-03-01T00:00:00Z')}&updatedTo=soon`, 'query.updatedTo'],
      ['hasPhone=yes', 'query.hasPhone'],
      ['source=email', 'query.source'],
      ['cluster=not-a-uuid', 'query.cluster'],
      [`q=${'x'.repeat(101)}`, 'query.q'],
      ['sort=name', 'query.sort'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=1.5', 'query.limit'],
      ['limit=1&limit=2', 'query.limit'],
      ['offset=10', 'query'],
    ]) {
      const body = await problem(await admin.get(`/api/v1/leads/v2?${query}`), 400, 'validation.failed');
      expect(JSON.stringify(body.errors), query).toContain(`"${path}`);
    }
    await problem(await admin.get('/api/v1/leads/v2?q=%00'), 400, 'request.invalid_text');
    // The edges of the calendar are answered, never a 500.
    for (const query of [
      'createdFrom=0000-01-01T00:00:00%2B14:00',
      'createdTo=9999-12-31T23:59:59-14:00',
      'updatedFrom=0000-01-01T00:00:00Z&updatedTo=9999-12-31T23:59:59.999999999Z',
    ]) {
      expect((await admin.get(`/api/v1/leads/v2?${query}`)).status, query).toBe(200);
      expect((await admin.get(`/api/v1/leads/v2/export.csv?${query}`)).status, query).toBeLessThan(500);
    }
    for (const query of [
      'from=0000-01-01T00:00:00%2B14:00&to=0000-12-01T00:00:00Z&tz=Pacific/Kiritimati',
      'from=9999-06-01T00:00:00Z&to=9999-12-31T23:59:59-14:00&tz=Etc/GMT%2B12',
    ]) {
      expect((await admin.get(`/api/v1/leads/v2/summary?${query}`)).status, query).toBe(200);
    }
  });

  it('walks every page while leads arrive, never repeating or skipping one that existed when it began', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-walker']);
    const walker = staffClient(gateway, agent('agent-walker'));
    // 40 leads at distinct instants and 40 sharing four instants (ties the id must break), microseconds included.
    const base = new Date('2026-05-01T10:00:00.123Z');
    const existing = [
      ...(await seedManyLeads(db.pool, {
        clusterId: cluster,
        count: 40,
        prefix: 'Walk',
        newest: base,
        stepMs: 1000,
      })),
    ];
    for (let i = 0; i < 4; i++) {
      const instant = new Date(base.getTime() - i * 7_000);
      existing.push(
        ...(await seedManyLeads(db.pool, {
          clusterId: cluster,
          count: 10,
          prefix: `Tie${i}`,
          newest: instant,
          stepMs: 0,
        })),
      );
    }
    await db.pool.query(
      "UPDATE messaging_leads SET created_at = created_at + interval '17 microseconds' WHERE cluster_id = $1",
      [cluster],
    );
    for (const sort of ['-createdAt', 'createdAt', '-updatedAt']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `sort=${sort}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        // New leads arrive while the page is read: newer ones, older ones, and ones among the ties.
        const [page] = await Promise.all([
          ok<Page>(await walker.get(`/api/v1/leads/v2?${query}`)),
          seedLead(db.pool, {
            clusterId: cluster,
            name: 'Late Newer',
            createdAt: new Date(base.getTime() + 60_000 + pages),
          }),
          seedLead(db.pool, {
            clusterId: cluster,
            name: 'Late Older',
            createdAt: new Date(base.getTime() - 3_600_000 - pages),
          }),
          seedLead(db.pool, {
            clusterId: cluster,
            name: 'Late Tie',
            createdAt: new Date(base.getTime() - 7_000),
          }),
        ]);
        seen.push(...page.items.map((lead) => lead.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null && pages < 100);
      expect(new Set(seen).size, `${sort}: no lead twice`).toBe(seen.length);
      expect(
        existing.filter((id) => !seen.includes(id)),
        `${sort}: none skipped`,
      ).toEqual([]);
    }
  });
});

describe('GET /api/v1/leads/v2/summary', () => {
  // Jakarta is UTC+7 all year: its 2 March starts at 1 March 17:00 UTC.
  const jakarta = 'from=2026-03-01T00:00:00%2B07:00&to=2026-03-04T00:00:00%2B07:00&tz=Asia/Jakarta';
  let summaryCluster: string;

  beforeAll(async () => {
    summaryCluster = await messagingRows.cluster(db.pool, ['agent-summary']);
    const lead = (createdAt: string, extra: Record<string, unknown> = {}) =>
      seedLead(db.pool, { clusterId: summaryCluster, name: 'Sari', createdAt, ...extra });
    await lead('2026-02-28T16:59:59.999Z'); // 28 Feb 23:59 in Jakarta: before the range
    await lead('2026-02-28T17:00:00Z'); // 1 Mar 00:00
    await lead('2026-03-01T16:59:59Z', { email: 'sari@example.com' }); // 1 Mar 23:59
    await lead('2026-03-01T17:00:00Z', { email: 'sari@example.com', phone: '6281200000777' }); // 2 Mar 00:00
    await lead('2026-03-01T18:30:00Z', { statusOverride: 'disqualified' }); // 2 Mar 01:30
    await lead('2026-03-03T16:59:59Z'); // 3 Mar 23:59
    await lead('2026-03-03T17:00:00Z'); // 4 Mar 00:00: after the range
    await seedLead(db.pool, { clusterId: clusterB, name: 'Bea', createdAt: '2026-03-02T03:00:00Z' });
  });

  it('counts the leads created in the range by status, cluster and calendar day in the time zone', async () => {
    const summary = await ok<Record<string, unknown>>(
      await staffClient(gateway, agent('agent-summary')).get(`/api/v1/leads/v2/summary?${jakarta}`),
    );
    expect(summary).toEqual({
      from: '2026-02-28T17:00:00.000Z',
      to: '2026-03-03T17:00:00.000Z',
      tz: 'Asia/Jakarta',
      total: 5,
      byStatus: { incomplete: 2, captured: 1, qualified: 1, contacted: 0, converted: 0, disqualified: 1 },
      byCluster: [{ clusterId: summaryCluster, count: 5 }],
      byDay: [
        { date: '2026-03-01', count: 2 },
        { date: '2026-03-02', count: 2 },
        { date: '2026-03-03', count: 1 },
      ],
    });
  });

  it("gives an admin every cluster's counts, and an agent none of another cluster's", async () => {
    const all = await ok<{ byCluster: Array<{ clusterId: string | null; count: number }>; total: number }>(
      await admin.get(`/api/v1/leads/v2/summary?${jakarta}`),
    );
    // Most first: the summary's cluster, the fixture's hour in A, Bianca and Bea in B, Nadia in none.
    expect(all.byCluster).toEqual([
      { clusterId: summaryCluster, count: 5 },
      { clusterId: clusterA, count: 4 },
      { clusterId: clusterB, count: 2 },
      { clusterId: null, count: 1 },
    ]);
    const inUtc = await ok<{ byDay: unknown[]; tz: string }>(
      await agentA.get('/api/v1/leads/v2/summary?from=2026-03-01T00:00:00Z&to=2026-03-01T01:00:00Z'),
    );
    expect(inUtc).toMatchObject({ tz: 'UTC', total: 4, byCluster: [{ clusterId: clusterA, count: 4 }] });
    expect(inUtc.byDay).toEqual([{ date: '2026-03-01', count: 4 }]);
    const forB = await ok<{ total: number }>(await agentB.get(`/api/v1/leads/v2/summary?${jakarta}`));
    expect(forB.total).toBe(2);
    expect(JSON.stringify(forB)).not.toContain(summaryCluster);
  });

  it('refuses a missing or reversed range, one over 366 days, and a zone that does not exist', async () => {
    const bad = [
      ['to=2026-03-04T00:00:00Z', 'query.from'],
      ['from=2000-01-01T0%270:00:00.000Z&to=2000-01-01T00:00:00.000Z', 'query.from'],
      ['from=2000-01-01T00:00:00.000Z&to=2000-01-01T0%ED%A0%800:00:00.000Z', 'query.to'],
      ['from=2026-03-04T00:00:00Z&to=2026-03-04T00:00:00Z', 'query.to'],
      ['from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:01Z', 'query.to'],
      ['from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&tz=Mars/Olympus_Mons', 'query.tz'],
      ['from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&tz=../../etc/passwd', 'query.tz'],
      ['from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&tz=', 'query.tz'],
      ['from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z&cluster=x', 'query'],
    ];
    for (const [query, path] of bad) {
      const body = await problem(
        await admin.get(`/api/v1/leads/v2/summary?${query}`),
        400,
        'validation.failed',
      );
      expect(JSON.stringify(body.errors), query).toContain(`"${path}`);
    }
    // 366 days exactly is allowed.
    await ok(
      await admin.get(
        '/api/v1/leads/v2/summary?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&tz=Europe/Berlin',
      ),
    );
  });
});

describe('GET /api/v1/leads/v2/:id', () => {
  it('answers the lead, its conversation and its status history, with a strong ETag', async () => {
    const res = await agentA.get(`/api/v1/leads/v2/${ids.anna}`);
    const detail = await ok<{ lead: Lead; conversation: Record<string, unknown>; history: unknown[] }>(res);
    expect(res.headers.get('etag')).toBe(`"${ids.anna}.1"`);
    expect(detail.lead).toMatchObject({ id: ids.anna, status: 'qualified', version: 1 });
    expect(detail.conversation).toMatchObject({
      id: detail.lead.conversationId,
      clusterId: clusterA,
      status: 'open',
    });
    expect(detail.history).toEqual([
      {
        status: 'qualified',
        computedStatus: 'qualified',
        statusOverride: null,
        changedBy: null,
        changedAt: at(1).toISOString(),
      },
    ]);
    const manual = await ok<{ conversation: unknown }>(await agentA.get(`/api/v1/leads/v2/${ids.dedi}`));
    expect(manual.conversation).toBeNull();
  });

  it("is 404 for another cluster's lead and for none, and 400 for a bad id", async () => {
    await problem(await agentA.get(`/api/v1/leads/v2/${ids.bianca}`), 404, 'messaging.lead.not_found');
    await problem(await agentA.get(`/api/v1/leads/v2/${ids.nobody}`), 404, 'messaging.lead.not_found');
    await problem(
      await admin.get('/api/v1/leads/v2/00000000-0000-4000-8000-000000000000'),
      404,
      'messaging.lead.not_found',
    );
    await problem(await admin.get('/api/v1/leads/v2/not-a-lead'), 400, 'validation.failed');
    // The detail reads no query: one is ignored, as an unread header is.
    expect((await admin.get(`/api/v1/leads/v2/${ids.anna}?x=1`)).status).toBe(200);
    await ok(await admin.get(`/api/v1/leads/v2/${ids.bianca}`));
  });

  it('is audited as a sensitive read', async () => {
    const res = await agentA.get(`/api/v1/leads/v2/${ids.budi}`);
    await ok(res);
    const requestId = res.headers.get('x-request-id');
    // The audit writer batches its rows: wait for this request's.
    const rows = await eventually('the audit row of the read', 20_000, async () => {
      const { rows: found } = await db.pool.query<{ actor: string; payload: { route: string } }>(
        "SELECT actor, payload FROM audit_log WHERE kind = 'api.access.sensitive' AND request_id = $1",
        [requestId],
      );
      return found.length > 0 ? found : undefined;
    });
    expect(rows.map((row) => [row.actor, row.payload.route])).toEqual([['agent-a', '/api/v1/leads/v2/:id']]);
  });
});

describe('the legacy API, /api/v1/leads', () => {
  const expectDeprecated = (res: Response) => {
    expect(res.headers.get('deprecation')).toBe('@1795478400');
    expect(res.headers.get('link')).toBe('</api/v1/leads/v2>; rel="successor-version"');
  };

  it('lists the newest leads in scope, flat, with the deprecation headers', async () => {
    const res = await agentA.get('/api/v1/leads?limit=2');
    expectDeprecated(res);
    const body = await ok<{ items: Array<Record<string, unknown>> }>(res);
    expect(body.items.map((lead) => lead.id)).toEqual([ids.dedi, ids.cici]);
    expect(Object.keys(body.items[0] ?? {}).sort()).toEqual(
      ['conversationId', 'createdAt', 'email', 'id', 'name', 'phone', 'status', 'updatedAt'].sort(),
    );
    const refused = await agentA.get('/api/v1/leads?limit=101');
    expectDeprecated(refused);
    await problem(refused, 400, 'validation.failed');
    await problem(await agentA.get('/api/v1/leads?cursor=x'), 400, 'validation.failed');
  });

  it("creates a manual lead in the agent's only cluster, validated as capture validates", async () => {
    const res = await agentA.post('/api/v1/leads', {
      json: { name: 'eka putri', email: 'Eka@Example.COM', phone: '+62 812-3456-7890', notes: 'walk-in' },
    });
    expectDeprecated(res);
    const text = await res.text();
    expect(res.status, text).toBe(201);
    const created = JSON.parse(text) as Lead;
    expect(created).toMatchObject({
      name: 'Eka Putri',
      email: 'Eka@example.com',
      phone: '6281234567890',
      status: 'qualified',
      conversationId: null,
    });
    expect(res.headers.get('location')).toBe(`/api/v1/leads/v2/${created.id}`);
    expect(res.headers.get('etag')).toBe(`"${created.id}.1"`);
    const detail = await ok<{ lead: Lead; history: Array<{ changedBy: string }> }>(
      await agentA.get(`/api/v1/leads/v2/${created.id}`),
    );
    expect(detail.lead).toMatchObject({ source: 'manual', clusterId: clusterA, notes: 'walk-in' });
    expect(detail.lead.capturedAt).toEqual(expect.any(String));
    expect(detail.history.map((h) => h.changedBy)).toEqual(['agent-a']);
    await problem(await agentB.get(`/api/v1/leads/v2/${created.id}`), 404, 'messaging.lead.not_found');
  });

  it('makes an agent of several clusters name one of theirs, and an admin may leave it out', async () => {
    const several = await problem(
      await agentAB.post('/api/v1/leads', { json: { name: 'Fajar' } }),
      400,
      'validation.failed',
    );
    expect(JSON.stringify(several.errors)).toContain('body.clusterId');
    await problem(await loner.post('/api/v1/leads', { json: { name: 'Fajar' } }), 400, 'validation.failed');
    await problem(
      await agentA.post('/api/v1/leads', { json: { name: 'Fajar', clusterId: clusterB } }),
      404,
      'messaging.cluster.not_found',
    );
    const inB = await agentAB.post('/api/v1/leads', { json: { name: 'Fajar', clusterId: clusterB } });
    expect(inB.status).toBe(201);
    expect(((await inB.json()) as Lead).status).toBe('incomplete');
    const unclustered = await admin.post('/api/v1/leads', { json: { name: 'Gita' } });
    expect(unclustered.status).toBe(201);
    const gita = (await unclustered.json()) as Lead;
    expect(
      (await ok<{ lead: Lead }>(await admin.get(`/api/v1/leads/v2/${gita.id}`))).lead.clusterId,
    ).toBeNull();
    await problem(
      await admin.post('/api/v1/leads', {
        json: { name: 'Gita', clusterId: '00000000-0000-4000-8000-000000000000' },
      }),
      404,
      'messaging.cluster.not_found',
    );
  });

  it('refuses what capture would refuse, and writes nothing', async () => {
    const { rows: before } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM messaging_leads',
    );
    for (const [body, path] of [
      [{ name: 'Hadi', email: 'hadi@' }, 'body.email'],
      [{ name: 'Hadi', email: 'hadi@example' }, 'body.email'],
      [{ name: 'Hadi', phone: '+1 415 555 0100' }, 'body.phone'],
      [{ name: 'Hadi', phone: '021 555 0100' }, 'body.phone'],
      [{ name: 'saya mau daftar 123' }, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ email: 'hadi@example.com' }, 'body.name'],
      [{ name: 'Hadi', notes: 'x'.repeat(10_001) }, 'body.notes'],
      [{ name: 'Hadi', source: 'manual' }, 'body'],
      [{ name: 'Hadi', clusterId: 'a' }, 'body.clusterId'],
    ] as const) {
      const res = await agentA.post('/api/v1/leads', { json: body });
      const problemBody = await problem(res, 400, 'validation.failed');
      expect(JSON.stringify(problemBody.errors), JSON.stringify(body)).toContain(`"${path}`);
    }
    const { rows: after } = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM messaging_leads',
    );
    expect(after).toEqual(before);
  });
});

describe('every leads route', () => {
  it('refuses a caller without a session with 401 problem+json', async () => {
    const lead = ids.anna as string;
    for (const [method, path] of [
      ['GET', '/api/v1/leads'],
      ['POST', '/api/v1/leads'],
      ['GET', '/api/v1/leads/v2'],
      ['GET', '/api/v1/leads/v2/summary'],
      ['GET', '/api/v1/leads/v2/export.csv'],
      ['GET', `/api/v1/leads/v2/${lead}`],
      ['PATCH', `/api/v1/leads/v2/${lead}`],
    ] as const) {
      const res = await fetch(`${gateway.url}${path}`, { method });
      await problem(res, 401, 'api.auth.unauthenticated');
    }
  });
});
