/**
 * The leads summary's rollup (plugins/messaging/README.md, "Leads"; docs/adr/0012-lead-summary-rollup.md):
 * a summary asked in MESSAGING_SUMMARY_TIME_ZONE, summed from the daily counts and their pending deltas with
 * the partial days scanned, answers exactly what the scan of every lead answers — over random ranges, for
 * admins and agents, after inserts, staff status overrides, cluster moves, deletes and compaction, and after
 * a boot that recounts for another zone (one with daylight saving at midnight). Compactions running at once
 * while leads are written never count a delta twice, and the coarse counts an admin's summary reads stay the
 * sums of the fine ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leadSummaryView } from '../src/domain/lead-summary.ts';
import { leadCountStore } from '../src/store/lead-count-store.ts';
import { leadSummaryStore, type LeadSummaryRequest } from '../src/store/lead-summary-store.ts';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { seedLead } from '../../../test/support/leads.ts';
import type { ProviderStub } from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffApiEnv, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let clusterA: string;
let clusterB: string;

/** The seeded leads' creation span: a month around Havana's return to standard time (00:59 → 00:00). */
const START = Date.parse('2026-10-20T00:00:00Z');
const END = Date.parse('2026-11-20T00:00:00Z');
const STATUSES = [null, null, null, 'contacted', 'converted', 'disqualified'];

/** A small deterministic generator, so a failing range can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Some leads on a whole hour: every midnight of the zones tested is one, the edges a range must split at. */
function onTheHour(at: number, round: boolean): Date {
  return new Date(round ? at - (at % 3_600_000) : at);
}

/** `count` leads at random instants of the span, in A, B or none, some with a staff status, a
 * quarter on a whole hour, in one INSERT. */
async function seedRandomLeads(count: number, seed: number): Promise<void> {
  const next = random(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T;
  const rows = Array.from({ length: count }, () => ({
    cluster: pick([clusterA, clusterA, clusterB, null]),
    override: pick(STATUSES),
    email: next() < 0.6 ? 'x@example.com' : null,
    createdAt: onTheHour(START + Math.floor(next() * (END - START)), next() < 0.25),
  }));
  await db.pool.query(
    `INSERT INTO messaging_leads (source, cluster_id, name, email, status_override, status, created_at, updated_at)
     SELECT 'manual', c, 'Lead', e, o, messaging_lead_status('Lead', e, NULL), t, t
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[]) AS r(c, o, e, t)`,
    [
      rows.map((row) => row.cluster),
      rows.map((row) => row.override),
      rows.map((row) => row.email),
      rows.map((row) => row.createdAt),
    ],
  );
}

/** An instant of the span: any, a whole hour, or a midnight of `tz` (asked of PostgreSQL). */
async function randomInstant(next: () => number, tz: string): Promise<Date> {
  const at = START - 3 * 86_400_000 + Math.floor(next() * (END - START + 6 * 86_400_000));
  const kind = next();
  if (kind < 0.3) return new Date(at);
  if (kind < 0.5) return new Date(at - (at % 3_600_000));
  const { rows } = await db.pool.query<{ midnight: Date }>(
    `SELECT (($1::timestamptz AT TIME ZONE $2)::date::timestamp AT TIME ZONE $2) AS midnight`,
    [new Date(at), tz],
  );
  return rows[0]?.midnight as Date;
}

async function randomRange(next: () => number, tz: string): Promise<{ from: Date; to: Date }> {
  const [a, b] = [await randomInstant(next, tz), await randomInstant(next, tz)];
  if (a.getTime() === b.getTime()) return { from: a, to: new Date(a.getTime() + 1) };
  return a < b ? { from: a, to: b } : { from: b, to: a };
}

/** What the scan answers: the reference every rollup answer must equal. */
async function scanned(request: LeadSummaryRequest) {
  return leadSummaryView(request, await leadSummaryStore.counts(db.pool, request));
}

/**
 * Random ranges compared at the store (many, every scope) and through HTTP (fewer, admin and agent); returns
 * how many the rollup answered itself (the rest fell back to the scan).
 */
async function compareRandomRanges(seed: number, tz: string, ranges: number): Promise<number> {
  const next = random(seed);
  const scopes = [null, [clusterA], [clusterA, clusterB], []];
  let rolled = 0;
  for (let i = 0; i < ranges; i += 1) {
    const range = await randomRange(next, tz);
    for (const clusters of scopes) {
      const request = { ...range, tz, clusters };
      const counts = await leadSummaryStore.rolledUp(db.pool, request);
      if (counts === null) continue;
      rolled += 1;
      const label = `seed ${seed} #${i} ${JSON.stringify(request)}`;
      expect(leadSummaryView(request, counts), label).toEqual(await scanned(request));
    }
  }
  return rolled;
}

async function compareThroughHttp(seed: number, tz: string, ranges: number): Promise<void> {
  const next = random(seed);
  const callers: Array<[StaffClient, string[] | null]> = [
    [staffClient(gateway, ADMIN), null],
    [staffClient(gateway, agent('agent-a')), [clusterA]],
    [staffClient(gateway, agent('agent-b')), [clusterB]],
  ];
  for (let i = 0; i < ranges; i += 1) {
    const range = await randomRange(next, tz);
    const query = new URLSearchParams({ from: range.from.toISOString(), to: range.to.toISOString(), tz });
    for (const [client, clusters] of callers) {
      const res = await client.get(`/api/v1/leads/v2/summary?${query}`);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      expect(JSON.parse(text), `seed ${seed} #${i} ${query}`).toEqual(
        await scanned({ ...range, tz, clusters }),
      );
    }
  }
}

/** Folds every pending delta. */
async function compactAll(): Promise<void> {
  while ((await leadCountStore.compact(db.pool, 1000)) > 0);
}

/** The counts table, compacted, equals a fresh count of the leads in the zone. */
async function expectCountsMatchLeads(tz: string): Promise<void> {
  await compactAll();
  const counted = await db.pool.query(
    `SELECT day::text, cluster_id, effective_status, n::int FROM messaging_lead_counts WHERE n <> 0
      ORDER BY 1, 2, 3`,
  );
  const fresh = await db.pool.query(
    `SELECT (created_at AT TIME ZONE $1)::date::text AS day, cluster_id, effective_status, count(*)::int AS n
       FROM messaging_leads GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [tz],
  );
  expect(counted.rows).toEqual(fresh.rows);
  // The coarse counts an admin's summary reads are the sums of the fine ones.
  for (const [table, key] of [
    ['messaging_lead_counts_by_status', 'effective_status'],
    ['messaging_lead_counts_by_cluster', 'cluster_id'],
  ] as const) {
    const coarse = await db.pool.query(
      `SELECT day::text, ${key}, n::int FROM ${table} WHERE n <> 0 ORDER BY 1, 2`,
    );
    const summed = await db.pool.query(
      `SELECT (created_at AT TIME ZONE $1)::date::text AS day, ${key}, count(*)::int AS n
         FROM messaging_leads GROUP BY 1, 2 ORDER BY 1, 2`,
      [tz],
    );
    expect(coarse.rows, table).toEqual(summed.rows);
  }
  const pending = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM messaging_lead_count_deltas',
  );
  expect(pending.rows[0]?.n).toBe(0);
}

beforeAll(async () => {
  ({ db, provider, gateway, stop } = await startStaffApiHarness());
  clusterA = await messagingRows.cluster(db.pool, ['agent-a']);
  clusterB = await messagingRows.cluster(db.pool, ['agent-b']);
  await seedRandomLeads(1500, 17);
}, 60_000);
// The last test replaces the harness's gateway with one of its own: close whichever is current before the
// harness drops the database (a gateway still connected then sees its connections reset).
afterAll(async () => {
  await gateway?.close();
  await stop?.();
});

describe('the leads summary in MESSAGING_SUMMARY_TIME_ZONE', () => {
  it('answers exactly what the scan answers, with deltas pending and after compaction', async () => {
    expect(await compareRandomRanges(1, 'UTC', 60)).toBeGreaterThan(150);
    await compactAll();
    expect(await compareRandomRanges(2, 'UTC', 60)).toBeGreaterThan(150);
    await compareThroughHttp(3, 'UTC', 12);
    await expectCountsMatchLeads('UTC');
  }, 120_000);

  it('stays exact after inserts, status overrides, cluster moves and deletes', async () => {
    const admin = staffClient(gateway, ADMIN);
    const captured = await seedLead(db.pool, {
      clusterId: clusterA,
      name: 'Moved',
      createdAt: '2026-11-02T12:00:00Z',
    });
    const overridden = await seedLead(db.pool, {
      clusterId: clusterB,
      createdAt: '2026-11-03T23:59:59.999Z',
    });
    await seedRandomLeads(200, 18);
    // A staff override through the API (If-Match), which changes the effective status only.
    const detail = await admin.get(`/api/v1/leads/v2/${overridden}`);
    const patched = await admin.patch(`/api/v1/leads/v2/${overridden}`, {
      json: { statusOverride: 'converted' },
      headers: { 'if-match': detail.headers.get('etag') as string },
    });
    expect(patched.status, await patched.text()).toBe(200);
    // The conversation moves to B: its lead follows (a trigger); other leads move and change day directly.
    await db.pool.query(
      `UPDATE messaging_conversations SET cluster_id = $2
        WHERE id = (SELECT conversation_id FROM messaging_leads WHERE id = $1)`,
      [captured, clusterB],
    );
    await db.pool.query(
      `UPDATE messaging_leads SET cluster_id = CASE WHEN cluster_id = $1 THEN $2::uuid ELSE NULL END
        WHERE id IN (SELECT id FROM messaging_leads WHERE source = 'manual' ORDER BY id LIMIT 40)`,
      [clusterA, clusterB],
    );
    await db.pool.query(
      `UPDATE messaging_leads SET created_at = created_at + interval '30 hours'
        WHERE id IN (SELECT id FROM messaging_leads ORDER BY id DESC LIMIT 25)`,
    );
    await db.pool.query(`UPDATE messaging_leads SET notes = 'no count changes' WHERE id = $1`, [captured]);
    await db.pool.query(
      'DELETE FROM messaging_leads WHERE id IN (SELECT id FROM messaging_leads ORDER BY created_at LIMIT 30)',
    );
    // A cluster deleted: its leads keep existing, without a cluster.
    const doomed = await messagingRows.cluster(db.pool, []);
    await seedLead(db.pool, { clusterId: doomed, source: 'manual', createdAt: '2026-11-05T06:00:00Z' });
    await db.pool.query('DELETE FROM messaging_clusters WHERE id = $1', [doomed]);

    const pending = await db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM messaging_lead_count_deltas',
    );
    expect(pending.rows[0]?.n).toBeGreaterThan(0);
    expect(await compareRandomRanges(4, 'UTC', 50)).toBeGreaterThan(120);
    await compareThroughHttp(5, 'UTC', 8);
    await compactAll();
    expect(await compareRandomRanges(6, 'UTC', 50)).toBeGreaterThan(120);
    await expectCountsMatchLeads('UTC');
  }, 120_000);

  it('never counts a delta twice while several compactions run beside concurrent writers', async () => {
    await compactAll();
    let writing = true;
    const writers = (async () => {
      // 240 small statements, 8 at a time: 240+ deltas for the compactions to share.
      for (let round = 0; round < 30; round += 1) {
        await Promise.all(Array.from({ length: 8 }, (_, i) => seedRandomLeads(3, 1000 + round * 8 + i)));
      }
      writing = false;
    })();
    const compactions: number[] = [0, 0, 0, 0];
    const compactors = compactions.map(async (_, i) => {
      for (;;) {
        const folded = await leadCountStore.compact(db.pool, 5);
        compactions[i] = (compactions[i] ?? 0) + folded;
        if (folded === 0 && !writing) return;
      }
    });
    await Promise.all([writers, ...compactors]);
    expect(compactions.filter((folded) => folded > 0).length).toBeGreaterThan(1);
    await expectCountsMatchLeads('UTC');
    expect(await compareRandomRanges(7, 'UTC', 20)).toBeGreaterThan(40);
  }, 120_000);
});

describe('a gateway booted with another MESSAGING_SUMMARY_TIME_ZONE', () => {
  it('recounts every lead in the new zone at boot and answers exactly in it, compacting on its own', async () => {
    await gateway.close();
    gateway = await startTestGateway({
      databaseUrl: db.url,
      env: staffApiEnv(provider, {
        MESSAGING_SUMMARY_TIME_ZONE: 'America/Havana',
        MESSAGING_SUMMARY_COMPACT_MS: '200',
      }),
    });
    expect(await leadCountStore.zone(db.pool)).toBe('America/Havana');
    await expectCountsMatchLeads('America/Havana');
    // The counts are no longer in UTC: the rollup declines, the service scans.
    const utc = { from: new Date(START), to: new Date(END), tz: 'UTC', clusters: null };
    expect(await leadSummaryStore.rolledUp(db.pool, utc)).toBeNull();
    await compareThroughHttp(8, 'UTC', 4);

    expect(await compareRandomRanges(9, 'America/Havana', 60)).toBeGreaterThan(150);
    await seedRandomLeads(100, 19);
    await compareThroughHttp(10, 'America/Havana', 10);
    // The gateway's own loop folds the new deltas.
    await eventually('the deltas folded by the gateway', 20_000, async () => {
      const { rows } = await db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM messaging_lead_count_deltas',
      );
      return rows[0]?.n === 0 ? true : undefined;
    });
    expect(await compareRandomRanges(11, 'America/Havana', 40)).toBeGreaterThan(100);
  }, 120_000);
});
