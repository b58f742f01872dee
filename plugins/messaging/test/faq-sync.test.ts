/**
 * The FAQ's sync with an external knowledge service (README, "FAQ", "Synchronisation"), through the booted
 * gateway on PostgreSQL against a loopback knowledge service: the first pull imports, the same ETag transfers
 * nothing, changes update, removals archive, a local edit meets an upstream change as a conflict an admin
 * resolves either way, a failing service changes nothing, and two concurrent syncs make one run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../../test/support/database.ts';
import {
  startKnowledgeStub,
  type KnowledgeStub,
  type UpstreamFaq,
} from '../../../test/support/knowledge-service.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffClient } from '../../../test/support/staff-api.ts';

const TOKEN = 'faq-sync-token-for-tests-0123456789';

let db: TestDatabase;
let knowledge: KnowledgeStub;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;

beforeAll(async () => {
  knowledge = await startKnowledgeStub();
  ({ db, gateway, stop } = await startStaffApiHarness({
    env: { FAQ_SYNC_URL: knowledge.url, FAQ_SYNC_TOKEN: TOKEN },
  }));
}, 60_000);
afterAll(async () => {
  await stop?.();
  await knowledge?.close();
});

const admin = () => staffClient(gateway, ADMIN);

interface Run {
  id: string;
  status: string;
  etag: string | null;
  created: number;
  updated: number;
  archived: number;
  conflicts: number;
  unchanged: number;
  error: string | null;
}

interface Entry {
  id: string;
  externalId: string | null;
  questions: string[];
  answer: string;
  archived: boolean;
  published: boolean;
  locallyEdited: boolean;
}

function item(id: string, answer: string, questions = [`pertanyaan ${id}?`]): UpstreamFaq {
  return { id, questions, answer, language: 'id', updatedAt: new Date().toISOString() };
}

async function sync(): Promise<Run> {
  const res = await admin().post('/api/v1/faq/sync');
  expect(res.status).toBe(200);
  return (await res.json()) as Run;
}

/** Every entry with an external id, live and archived, by external id. */
async function synced(): Promise<Map<string, Entry>> {
  const all: Entry[] = [];
  for (const archived of ['false', 'true']) {
    const res = await admin().get(`/api/v1/faq?limit=100&archived=${archived}`);
    all.push(...((await res.json()) as { items: Entry[] }).items);
  }
  return new Map(all.filter((e) => e.externalId !== null).map((e) => [e.externalId as string, e]));
}

const counts = (run: Run) => ({
  created: run.created,
  updated: run.updated,
  archived: run.archived,
  conflicts: run.conflicts,
  unchanged: run.unchanged,
});
const none = { created: 0, updated: 0, archived: 0, conflicts: 0, unchanged: 0 };

describe('FAQ sync', () => {
  it('imports, transfers nothing for the same ETag, updates, archives, and records conflicts admins resolve', async () => {
    knowledge.setItems([item('a', 'Jawaban A'), item('b', 'Jawaban B'), item('c', 'Jawaban C')]);
    const first = await sync();
    expect(first.status).toBe('succeeded');
    expect(counts(first)).toEqual({ ...none, created: 3 });
    expect(first.etag).toMatch(/^"v\d+"$/);
    let entries = await synced();
    expect(entries.get('a')).toMatchObject({ answer: 'Jawaban A', published: true, archived: false });
    expect(knowledge.requests.at(-1)).toEqual({ ifNoneMatch: undefined, authorization: `Bearer ${TOKEN}` });

    // Same list: the ETag goes back and the service answers 304; nothing transferred, nothing changed.
    const second = await sync();
    expect(second.status).toBe('not_modified');
    expect(counts(second)).toEqual(none);
    expect(knowledge.requests.at(-1)?.ifNoneMatch).toBe(first.etag);

    // An upstream change updates; a removal archives; the rest is unchanged.
    knowledge.setItems([item('a', 'Jawaban A baru'), item('c', 'Jawaban C')]);
    const third = await sync();
    expect(counts(third)).toEqual({ ...none, updated: 1, archived: 1, unchanged: 1 });
    entries = await synced();
    expect(entries.get('a')?.answer).toBe('Jawaban A baru');
    expect(entries.get('b')?.archived).toBe(true);

    // A local edit plus an upstream change: a conflict, the local text stays.
    const c = entries.get('c') as Entry;
    const edit = await admin().patch(`/api/v1/faq/${c.id}`, { json: { answer: 'Jawaban C lokal' } });
    expect(edit.status).toBe(200);
    expect(((await edit.json()) as Entry).locallyEdited).toBe(true);
    knowledge.setItems([item('a', 'Jawaban A baru'), item('c', 'Jawaban C upstream')]);
    const fourth = await sync();
    expect(counts(fourth)).toEqual({ ...none, conflicts: 1, unchanged: 1 });
    expect((await synced()).get('c')?.answer).toBe('Jawaban C lokal');
    const open = (await (await admin().get('/api/v1/faq/conflicts')).json()) as {
      items: Array<{ id: string; entryId: string; upstream: { answer: string }; local: { answer: string } }>;
    };
    expect(open.items).toHaveLength(1);
    expect(open.items[0]).toMatchObject({
      entryId: c.id,
      upstream: { answer: 'Jawaban C upstream' },
      local: { answer: 'Jawaban C lokal' },
    });

    // Keep local: the local text stays, this upstream version is settled (no new conflict for it).
    const keepLocal = await admin().post(`/api/v1/faq/conflicts/${open.items[0]?.id}/resolve`, {
      json: { keep: 'local' },
    });
    expect(keepLocal.status).toBe(200);
    expect(await keepLocal.json()).toMatchObject({ resolution: 'local', resolvedBy: ADMIN.sub });
    const again = await admin().post(`/api/v1/faq/conflicts/${open.items[0]?.id}/resolve`, {
      json: { keep: 'upstream' },
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('messaging.faq.conflict_resolved');
    knowledge.setItems([item('a', 'Jawaban A baru'), item('c', 'Jawaban C upstream')]);
    expect(counts(await sync())).toEqual({ ...none, unchanged: 2 });
    expect((await synced()).get('c')?.answer).toBe('Jawaban C lokal');

    // The next upstream change conflicts again; keep upstream takes it and clears the local mark.
    knowledge.setItems([item('a', 'Jawaban A baru'), item('c', 'Jawaban C versi 3')]);
    expect(counts(await sync())).toEqual({ ...none, conflicts: 1, unchanged: 1 });
    const next = (await (await admin().get('/api/v1/faq/conflicts')).json()) as {
      items: Array<{ id: string }>;
    };
    const keepUpstream = await admin().post(`/api/v1/faq/conflicts/${next.items[0]?.id}/resolve`, {
      json: { keep: 'upstream' },
    });
    expect(keepUpstream.status).toBe(200);
    expect((await synced()).get('c')).toMatchObject({ answer: 'Jawaban C versi 3', locallyEdited: false });
    knowledge.setItems([item('a', 'Jawaban A baru'), item('c', 'Jawaban C versi 4')]);
    expect(counts(await sync())).toEqual({ ...none, updated: 1, unchanged: 1 });

    // The history lists every run, newest first.
    const runs = (await (await admin().get('/api/v1/faq/sync/runs?limit=100')).json()) as { items: Run[] };
    expect(runs.items.map((run) => run.status)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
      'not_modified',
      'succeeded',
    ]);
    // The token is sent, never logged.
    expect(JSON.stringify(gateway.logs())).not.toContain(TOKEN);
  });

  it('records the error and changes nothing when the service is down, failing or answering garbage', async () => {
    const before = await synced();
    const etagBefore = (await db.pool.query<{ etag: string | null }>('SELECT etag FROM messaging_faq_state'))
      .rows[0]?.etag;
    knowledge.setItems([item('z', 'Tidak boleh masuk')]);
    for (const [mode, error] of [
      ['down', /^upstream unreachable/],
      ['error', /^upstream answered 500$/],
      ['garbage', /^upstream list is not JSON$/],
    ] as const) {
      knowledge.setMode(mode);
      const run = await sync();
      expect(run).toMatchObject({ status: 'failed', ...none });
      expect(run.error).toMatch(error);
      expect(await synced()).toEqual(before);
    }
    const state = await db.pool.query<{ etag: string | null }>('SELECT etag FROM messaging_faq_state');
    expect(state.rows[0]?.etag).toBe(etagBefore);
    // Back up: the next run applies the list.
    knowledge.setMode('ok');
    const recovered = await sync();
    expect(recovered.status).toBe('succeeded');
    expect((await synced()).get('z')?.answer).toBe('Tidak boleh masuk');
  });

  it('runs one sync at a time: of two concurrent requests, one runs and the other is refused', async () => {
    knowledge.setItems([item('q', 'Satu kali')]);
    const runsBefore = await db.pool.query('SELECT 1 FROM messaging_faq_sync_runs');
    const requestsBefore = knowledge.requests.length;
    knowledge.hold();
    const both = [admin().post('/api/v1/faq/sync'), admin().post('/api/v1/faq/sync')];
    const refused = await Promise.race(both);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('messaging.faq.sync_in_progress');
    knowledge.release();
    const statuses = (await Promise.all(both)).map((res) => res.status).sort();
    expect(statuses).toEqual([200, 409]);
    expect(knowledge.requests.length).toBe(requestsBefore + 1);
    const runsAfter = await db.pool.query('SELECT 1 FROM messaging_faq_sync_runs');
    expect(runsAfter.rowCount).toBe((runsBefore.rowCount ?? 0) + 1);
  });

  it('is for admins only', async () => {
    const res = await staffClient(gateway, agent('a1')).post('/api/v1/faq/sync');
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe('messaging.staff.admin_required');
    const runs = await staffClient(gateway, agent('a1')).get('/api/v1/faq/sync/runs');
    expect(runs.status).toBe(403);
  });
});
