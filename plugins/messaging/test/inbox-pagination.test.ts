/**
 * The inbox's lists (plugins/messaging/README.md, "Staff API", "Agent inbox"): the conversations' filters
 * and text search, their keyset walk by last activity (a walk while conversations are created never repeats
 * or skips one that existed when it started, ties and microsecond-apart activity included), and one
 * conversation's messages paged both ways by arrival order.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
});
afterAll(() => stop?.());

interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
interface Item {
  id: string;
  lastActivityAt: string;
}

let phones = 0;

/** A conversation with its inbox state written as the pipeline and the staff would leave it. */
async function seed(
  clusterId: string,
  state: {
    activity: string;
    name?: string;
    phone?: string;
    status?: string;
    assignedTo?: string | null;
    unread?: number;
    last?: string;
  },
): Promise<string> {
  const phone = state.phone ?? `62899${String(++phones).padStart(8, '0')}${process.pid % 10}`;
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO messaging_conversations (phone_number_id, contact_key, contact_phone, contact_name, cluster_id,
       capture, created_at, updated_at, last_activity_at, status, assigned_to, unread_count, last_message_text)
     VALUES ('106540352242922', $1, $2, $3, $4, '{"state":"idle"}', now(), now(), $5::timestamptz, $6, $7, $8, $9)
     RETURNING id`,
    [
      `wa:${phone}:${randomUUID()}`,
      phone,
      state.name ?? null,
      clusterId,
      state.activity,
      state.status ?? 'open',
      state.assignedTo ?? null,
      state.unread ?? 0,
      state.last ?? null,
    ],
  );
  return rows[0]?.id as string;
}

async function page<T>(client: StaffClient, path: string): Promise<Page<T>> {
  const res = await client.get(path);
  expect(res.status).toBe(200);
  return (await res.json()) as Page<T>;
}

async function ids(client: StaffClient, query: string): Promise<string[]> {
  return (await page<Item>(client, `/api/v1/agent/conversations?${query}`)).items.map((item) => item.id);
}

describe('walking the inbox', () => {
  it('never repeats or skips a conversation that existed at the start, while others are created', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-walk']);
    const elsewhere = await messagingRows.cluster(db.pool, []);
    const client = staffClient(gateway, agent('agent-walk'));
    const existing: string[] = [];
    // Microseconds apart (a millisecond cursor would lose rows here), then a run of exact ties (the id
    // breaks them).
    for (let i = 0; i < 20; i++)
      existing.push(
        await seed(cluster, { activity: `2026-11-20T10:00:00.0000${String(i).padStart(2, '0')}Z` }),
      );
    for (let i = 0; i < 20; i++)
      existing.push(await seed(cluster, { activity: '2026-11-20T09:00:00.123456Z' }));
    for (let i = 0; i < 3; i++) await seed(elsewhere, { activity: '2026-11-20T10:00:00Z' });

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    let minute = 0;
    do {
      const query: string = `limit=7${cursor === null ? '' : `&cursor=${cursor}`}`;
      // New conversations arrive while the page is read: newer than everything, between seeded ones, and
      // older than everything.
      minute++;
      const [result] = await Promise.all([
        page<Item>(client, `/api/v1/agent/conversations?${query}`),
        seed(cluster, { activity: `2026-11-21T00:${String(minute).padStart(2, '0')}:00Z` }),
        seed(cluster, { activity: '2026-11-20T09:30:00Z' }),
        seed(cluster, { activity: `2026-11-19T00:${String(minute).padStart(2, '0')}:00Z` }),
      ]);
      expect(result.items.length).toBeLessThanOrEqual(7);
      seen.push(...result.items.map((item) => item.id));
      cursor = result.nextCursor;
      pages++;
    } while (cursor !== null && pages < 100);

    expect(cursor).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(existing.filter((id) => !seen.includes(id))).toEqual([]);
  });

  it('orders by last activity, most recent first, ties by id', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-order']);
    const client = staffClient(gateway, agent('agent-order'));
    const older = await seed(cluster, { activity: '2026-11-01T10:00:00Z' });
    const tied = [
      await seed(cluster, { activity: '2026-11-02T10:00:00Z' }),
      await seed(cluster, { activity: '2026-11-02T10:00:00Z' }),
    ]
      .sort()
      .reverse();
    const newest = await seed(cluster, { activity: '2026-11-03T10:00:00Z' });
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const result: Page<Item> = await page<Item>(
        client,
        `/api/v1/agent/conversations?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      walked.push(...result.items.map((item) => item.id));
      cursor = result.nextCursor;
    } while (cursor !== null);
    expect(walked).toEqual([newest, ...tied, older]);
  });
});

describe('filters and search', () => {
  let client: StaffClient;
  const c: Record<string, string> = {};

  beforeAll(async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-filter']);
    client = staffClient(gateway, agent('agent-filter'));
    c.budi = await seed(cluster, {
      activity: '2026-11-10T10:00:04Z',
      name: 'Budi Santoso',
      phone: '6281200000001',
      assignedTo: 'agent-filter',
      unread: 2,
      last: 'Biaya kuliah berapa?',
    });
    c.siti = await seed(cluster, {
      activity: '2026-11-10T10:00:03Z',
      name: 'Siti 100%_diskon',
      status: 'pending',
      last: 'halo',
    });
    c.ani = await seed(cluster, {
      activity: '2026-11-10T10:00:02Z',
      name: 'Ani',
      status: 'resolved',
      assignedTo: 'agent-other',
      last: 'terima kasih',
    });
    c.joko = await seed(cluster, { activity: '2026-11-10T10:00:01Z', name: 'Joko_x', unread: 1 });
  });

  it.each([
    ['status=pending', ['siti']],
    ['status=resolved', ['ani']],
    ['status=open', ['budi', 'joko']],
    ['assigned=me', ['budi']],
    ['assigned=unassigned', ['siti', 'joko']],
    ['assigned=any', ['budi', 'siti', 'ani', 'joko']],
    ['unread=true', ['budi', 'joko']],
    ['unread=false', ['siti', 'ani']],
    ['status=open&assigned=me&unread=true', ['budi']],
    ['q=budi', ['budi']],
    ['q=BIAYA%20KULIAH', ['budi']],
    ['q=6281200000001', ['budi']],
    ['q=%25', ['siti']],
    ['q=_', ['siti', 'joko']],
    ['q=100%25_d', ['siti']],
    ['q=o_x', ['joko']],
    ['q=%5C', []],
    ['q=nobody', []],
  ])('%s', async (query, expected) => {
    expect(await ids(client, query)).toEqual(expected.map((name) => c[name]));
  });
});

describe('one conversation’s messages', () => {
  let client: StaffClient;
  let conversation: string;
  let texts: string[];

  beforeAll(async () => {
    const cluster = await messagingRows.cluster(db.pool, ['agent-read']);
    client = staffClient(gateway, agent('agent-read'));
    conversation = await messagingRows.conversation(db.pool, cluster);
    texts = [];
    for (let i = 1; i <= 30; i++) {
      texts.push(`pesan ${i}`);
      await messagingRows.message(db.pool, conversation, `pesan ${i}`);
    }
  });

  type MessagePage = {
    items: Array<{ text: string; author: { kind: string } }>;
    olderCursor: string | null;
    newerCursor: string | null;
  };
  const messages = async (query = '') => {
    const res = await client.get(`/api/v1/agent/conversations/${conversation}/messages${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as MessagePage;
  };

  it('pages back from the newest and forward from any page, oldest first within a page', async () => {
    const latest = await messages();
    expect(latest.items.map((m) => m.text)).toEqual(texts.slice(5));
    expect(latest.items[0]?.author).toEqual({ kind: 'contact' });
    const older = await messages(`?before=${latest.olderCursor}`);
    expect(older.items.map((m) => m.text)).toEqual(texts.slice(0, 5));
    expect(older.olderCursor).toBeNull();

    const nothingYet = await messages(`?after=${latest.newerCursor}`);
    expect(nothingYet).toEqual({ items: [], olderCursor: null, newerCursor: latest.newerCursor });
    await messagingRows.message(db.pool, conversation, 'pesan 31');
    expect((await messages(`?after=${latest.newerCursor}`)).items.map((m) => m.text)).toEqual(['pesan 31']);

    const forward = await messages(`?after=${older.newerCursor}&limit=3`);
    expect(forward.items.map((m) => m.text)).toEqual(['pesan 6', 'pesan 7', 'pesan 8']);
    expect(forward.olderCursor).not.toBeNull();
    expect((await messages(`?before=${forward.olderCursor}&limit=2`)).items.map((m) => m.text)).toEqual([
      'pesan 4',
      'pesan 5',
    ]);
  });

  it('shows the last page with the conversation', async () => {
    const res = await client.get(`/api/v1/agent/conversations/${conversation}`);
    expect(res.status).toBe(200);
    const detail = (await res.json()) as { id: string; handler: string; messages: MessagePage };
    expect(detail).toMatchObject({ id: conversation, handler: 'bot' });
    expect(detail.messages.items.at(-1)?.text).toBe('pesan 31');
    expect(detail.messages.items).toHaveLength(25);
  });

  it('refuses a cursor of another conversation', async () => {
    const other = await messagingRows.conversation(
      db.pool,
      (
        await db.pool.query<{ cluster_id: string }>(
          'SELECT cluster_id FROM messaging_conversations WHERE id = $1',
          [conversation],
        )
      ).rows[0]?.cluster_id as string,
    );
    await messagingRows.message(db.pool, other, 'lain');
    const theirs = (
      (await (await client.get(`/api/v1/agent/conversations/${other}/messages`)).json()) as MessagePage
    ).newerCursor;
    const res = await client.get(`/api/v1/agent/conversations/${conversation}/messages?after=${theirs}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('messaging.cursor.invalid');
  });
});
