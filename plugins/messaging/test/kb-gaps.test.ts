/**
 * Knowledge-base gaps (plugins/messaging/README.md, "Knowledge base", "Gaps") through the real webhook, queue
 * and staff API on a moved clock: fallback messages grouped by their normal form and counted, per ISO week;
 * a KB miss of another tier, thumbs-down and corrections as candidates; a published document closing a
 * group on the next pass (and a new candidate reopening it once unpublished); two replicas refreshing at
 * once count each candidate once; the background loop; admin-only routes and their 4xx answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/core.ts';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postWebhook, textMessage, type ProviderStub } from '../../../test/support/messaging.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffApiEnv, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

const DAY = 86_400_000;
// Starts at the real time: staff session tokens are minted with it, and live long enough for the moves.
const clock = createManualClock(Date.now());
const timing = { clock, sessionMaxAgeSeconds: 30 * 24 * 3600 };
let db: TestDatabase;
let provider: ProviderStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let replica: TestGateway | undefined;
let admin: StaffClient;
let phones = 6281300000000;

const env = (interval = '0') => staffApiEnv(provider, { MESSAGING_KB_GAP_INTERVAL_MS: interval });

beforeAll(async () => {
  ({ db, provider, gateway, admin, stop } = await startStaffApiHarness({
    env: { MESSAGING_KB_GAP_INTERVAL_MS: '0' },
    clock,
    timing,
  }));
}, 60_000);
afterAll(async () => {
  await replica?.close();
  await stop?.();
});

interface Gap {
  key: string;
  status: 'open' | 'closed';
  count: number;
  firstSeenAt: string;
  lastSeenAt: string;
  weeks: Array<{ week: string; count: number }>;
  examples: Array<{ messageId: string; text: string; kind: string; at: string }>;
  closedBy: { documentId: string; title: string | null; kbVersion: number; closedAt: string } | null;
}
interface Refresh {
  collected: number;
  closed: number;
  kbVersion: number;
}

async function processedCount(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messaging_messages
      WHERE direction = 'inbound' AND processing_status = 'processed'`,
  );
  return rows[0]?.n ?? 0;
}

/** Each text from a new contact through the webhook; resolves once all of them are processed. */
async function contactsWrite(texts: readonly string[]): Promise<void> {
  const before = await processedCount();
  for (const text of texts) {
    const from = String(phones++);
    expect((await postWebhook(gateway, textMessage({ from, text, at: clock.now() }))).status).toBe(200);
  }
  await eventually('the messages processed', 30_000, async () =>
    (await processedCount()) >= before + texts.length ? true : undefined,
  );
}

async function refresh(client: StaffClient = admin): Promise<Refresh> {
  const res = await client.post('/api/v1/kb/gaps/refresh');
  expect(res.status).toBe(200);
  return (await res.json()) as Refresh;
}

async function gaps(query = ''): Promise<{ items: Gap[]; nextCursor: string | null }> {
  const res = await admin.get(`/api/v1/kb/gaps${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { items: Gap[]; nextCursor: string | null };
}

async function gap(key: string): Promise<Gap | undefined> {
  return (await gaps('?status=all&limit=100')).items.find((item) => item.key === key);
}

/** The bot's reply to the newest inbound message with this text. */
async function replyTo(text: string): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `SELECT r.id FROM messaging_messages r JOIN messaging_messages i ON i.id = r.in_reply_to
      WHERE i.text = $1 AND r.direction = 'outbound' ORDER BY i.created_at DESC LIMIT 1`,
    [text],
  );
  expect(rows[0]).toBeDefined();
  return (rows[0] as { id: string }).id;
}

/** Variants of five questions the classifier leaves to the default tier, each pair one normal form. */
const VARIANTS: Record<string, readonly [string, string]> = {
  'ada kolam renang': ['Ada kolam renang?', 'ada KOLAM renang kak??'],
  'parkir motor dimana': ['parkir motor dimana', 'Parkir motor di mana kak'],
  'apa ada lapangan futsal': ['apakah ada lapangan futsal', 'Apakah ada LAPANGAN futsal kak??'],
  'ada klub catur': ['ada klub catur?', 'Ada KLUB catur kak'],
  'boleh bawa kucing': ['boleh bawa kucing', 'Boleh bawa KUCING kak??'],
};
const COUNTS = [14, 12, 10, 8, 6];

describe('gap collection', () => {
  it('groups 50 fallback messages of 5 normalised variants into 5 groups with their counts', async () => {
    const texts = Object.values(VARIANTS).flatMap((pair, i) =>
      Array.from({ length: COUNTS[i] as number }, (_, n) => pair[n % 2] as string),
    );
    expect(texts).toHaveLength(50);
    await contactsWrite(texts);
    const { rows } = await db.pool.query<{ tier: number; n: number }>(
      `SELECT tier, count(*)::int AS n FROM messaging_messages WHERE direction = 'inbound' GROUP BY tier`,
    );
    expect(rows).toEqual([{ tier: 4, n: 50 }]);

    expect(await refresh()).toMatchObject({ collected: 50, closed: 0 });
    const page = await gaps();
    expect(page.items.map((g) => [g.key, g.count, g.status])).toEqual(
      Object.keys(VARIANTS).map((key, i) => [key, COUNTS[i], 'open']),
    );
    const pool = page.items[0] as Gap;
    expect(pool.examples).toHaveLength(3);
    for (const example of pool.examples) {
      expect(example.kind).toBe('fallback');
      expect(VARIANTS['ada kolam renang']).toContain(example.text);
    }
    expect(pool.weeks).toHaveLength(8);
    expect(pool.weeks.at(-1)?.count).toBe(14);
    expect(pool.closedBy).toBeNull();

    // Nothing new: a second pass counts nothing again.
    expect(await refresh()).toMatchObject({ collected: 0, closed: 0 });
    expect((await gap('ada kolam renang'))?.count).toBe(14);
  });

  it('walks the groups in keyset pages, the largest first', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await gaps(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((g) => g.key));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(Object.keys(VARIANTS));
  });

  it('counts each ISO week on a moved clock', async () => {
    await contactsWrite(['ada mesin fotokopi', 'Ada mesin FOTOKOPI kak?']);
    await refresh();
    clock.advance(7 * DAY);
    await contactsWrite(['ada mesin fotokopi', 'ada mesin fotokopi', 'Ada mesin FOTOKOPI kak?']);
    await refresh();
    const copier = await gap('ada mesin fotokopi');
    expect(copier?.count).toBe(5);
    expect(copier?.weeks.slice(-2).map((w) => w.count)).toEqual([2, 3]);
    expect(copier?.weeks.slice(0, -2).every((w) => w.count === 0)).toBe(true);
    expect(copier?.weeks.at(-1)?.week).toMatch(/^\d{4}-W\d{2}$/);
    expect(new Date(copier?.lastSeenAt ?? 0).getTime() - new Date(copier?.firstSeenAt ?? 0).getTime()).toBe(
      7 * DAY,
    );
  });

  it('collects a KB miss of another tier, thumbs-down and corrections', async () => {
    // Classified generalInfo by keyword (tier 2), asked of the empty knowledge base: no answer.
    await contactsWrite(['kantin halal ada?', 'perpustakaan buka jam berapa', 'bus kampus jam berapa']);
    const down = await admin.put(
      `/api/v1/messages/${await replyTo('perpustakaan buka jam berapa')}/feedback`,
      {
        json: { rating: 'down' },
      },
    );
    expect(down.status).toBe(201);
    const corrected = await admin.put(`/api/v1/messages/${await replyTo('bus kampus jam berapa')}/feedback`, {
      json: { correctAnswer: 'Bus kampus berangkat tiap 30 menit dari gerbang utama.' },
    });
    expect(corrected.status).toBe(201);
    // Feedback on a reply to a message already collected adds to its group.
    const parking = await admin.put(`/api/v1/messages/${await replyTo('parkir motor dimana')}/feedback`, {
      json: { rating: 'down', correctIntent: 'generalInfo' },
    });
    expect(parking.status).toBe(201);

    expect((await refresh()).collected).toBe(5);
    const kinds = async (key: string) => (await gap(key))?.examples.map((e) => e.kind);
    expect(await kinds('kantin halal ada')).toEqual(['no_kb_answer']);
    expect(await kinds('perpustakaan buka jam berapa')).toEqual(['thumbs_down']);
    expect(await kinds('bus kampus jam berapa')).toEqual(['correction']);
    expect((await gap('parkir motor dimana'))?.count).toBe(14);
    expect(new Set(await kinds('parkir motor dimana'))).toEqual(
      new Set(['thumbs_down', 'correction', 'fallback']),
    );
    // The tier-1 messages nobody complained about are no gap.
    expect((await refresh()).collected).toBe(0);
  });
});

describe('closing by retrieval', () => {
  let documentId = '';

  it('closes a group on the next pass once a published document answers its key, naming it', async () => {
    const created = await admin.post('/api/v1/kb/documents', {
      json: {
        title: 'Kolam renang',
        body: '# Kolam renang\n\nKampus ada kolam renang semi olimpiade di gedung olahraga, buka setiap hari.',
        language: 'id',
        status: 'published',
      },
    });
    expect(created.status).toBe(201);
    documentId = ((await created.json()) as { id: string }).id;

    const result = await refresh();
    expect(result).toMatchObject({ collected: 0, closed: 1 });
    const pool = await gap('ada kolam renang');
    expect(pool).toMatchObject({
      status: 'closed',
      count: 14,
      closedBy: { documentId, title: 'Kolam renang', kbVersion: result.kbVersion },
    });
    expect((await gaps()).items.map((g) => g.key)).not.toContain('ada kolam renang');
    expect((await gaps('?status=closed')).items.map((g) => g.key)).toEqual(['ada kolam renang']);
    // The other groups were searched at this version and stay open; nothing changed, nothing is searched.
    expect(await refresh()).toMatchObject({ collected: 0, closed: 0 });
  });

  it('reopens on a new candidate once the answer was unpublished', async () => {
    const unpublished = await admin.patch(`/api/v1/kb/documents/${documentId}`, {
      json: { status: 'draft' },
    });
    expect(unpublished.status).toBe(200);
    // Closed stays closed while nobody asks.
    await refresh();
    expect((await gap('ada kolam renang'))?.status).toBe('closed');

    await contactsWrite(['Ada kolam renang?']);
    expect(await refresh()).toMatchObject({ collected: 1, closed: 0 });
    expect(await gap('ada kolam renang')).toMatchObject({ status: 'open', count: 15, closedBy: null });
  });
});

describe('two replicas', () => {
  it('count each candidate once when both refresh at the same time', async () => {
    replica = await startTestGateway({ databaseUrl: db.url, env: env(), clock });
    const other = staffClient(replica, ADMIN, timing);
    const texts = Array.from({ length: 30 }, (_, i) => (i % 2 ? 'ada klub catur?' : 'Ada KLUB catur kak'));
    await contactsWrite(texts);
    const results = await Promise.all([refresh(), refresh(other), refresh(), refresh(other)]);
    expect(results.reduce((sum, r) => sum + r.collected, 0)).toBe(30);
    expect((await gap('ada klub catur'))?.count).toBe(38);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messaging_kb_gap_candidates WHERE key = 'ada klub catur'`,
    );
    expect(rows[0]?.n).toBe(38);
  });

  it('collects on the background loop without a refresh', async () => {
    await replica?.close();
    replica = await startTestGateway({ databaseUrl: db.url, env: env('50'), clock });
    await contactsWrite(['boleh bawa kucing']);
    await eventually('the loop collected the message', 20_000, async () =>
      (await gap('boleh bawa kucing'))?.count === 7 ? true : undefined,
    );
  });
});

describe('the gap routes', () => {
  const rina = () => staffClient(gateway, agent('agent-rina'), timing);

  it('are for admins only', async () => {
    for (const res of [await rina().get('/api/v1/kb/gaps'), await rina().post('/api/v1/kb/gaps/refresh')]) {
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ code: 'messaging.staff.admin_required' });
    }
  });

  it.each([
    ['?status=pending', 'validation.failed'],
    ['?limit=0', 'validation.failed'],
    ['?limit=101', 'validation.failed'],
    ['?sort=key', 'validation.failed'],
    ['?cursor=not-a-cursor', 'messaging.cursor.invalid'],
    ['?cursor=eyJrIjoia2ItZG9jdW1lbnRzIiwicCI6WzEsIngiXX0', 'messaging.cursor.invalid'],
  ])('refuse %s with 400 %s', async (query, code) => {
    const res = await admin.get(`/api/v1/kb/gaps${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as { code: string; requestId?: string };
    expect(body.code).toBe(code);
    expect(body.requestId).toBeTruthy();
  });

  it('refuses a query on the refresh', async () => {
    const res = await admin.post('/api/v1/kb/gaps/refresh?now=1');
    expect(res.status).toBe(400);
  });
});
