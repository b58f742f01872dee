/**
 * Staff feedback on the bot's replies (README, "Staff API", "Feedback"), through the booted gateway in enforce
 * mode with signed requests: give, replace, read and withdraw feedback; who may (scope); what is refused;
 * concurrent PUTs; the review list's pages; and the gold-set export, whose lines the classifier's own loader
 * must read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGoldSet } from '../src/classifier/gold-set.ts';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { postWebhook, textMessage } from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { ADMIN, agent, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
const tmp = mkdtempSync(path.join(tmpdir(), 'gatehouse-feedback-'));

/** Cluster A (agents a1, a2), cluster B (agent b1), and a conversation routed to no cluster. */
interface World {
  clusterA: string;
  clusterB: string;
  conversationA: string;
  conversationB: string;
  conversationNone: string;
}
let world: World;

beforeAll(async () => {
  ({ db, gateway, stop } = await startStaffApiHarness());
  const clusterA = await messagingRows.cluster(db.pool, ['a1', 'a2']);
  const clusterB = await messagingRows.cluster(db.pool, ['b1']);
  world = {
    clusterA,
    clusterB,
    conversationA: await messagingRows.conversation(db.pool, clusterA),
    conversationB: await messagingRows.conversation(db.pool, clusterB),
    conversationNone: await messagingRows.conversation(db.pool, null),
  };
}, 60_000);
afterAll(async () => {
  rmSync(tmp, { recursive: true, force: true });
  await stop?.();
});

const a1 = () => staffClient(gateway, agent('a1'));
const a2 = () => staffClient(gateway, agent('a2'));
const b1 = () => staffClient(gateway, agent('b1'));
const admin = () => staffClient(gateway, ADMIN);

/** A customer message and the bot's reply to it; returns the reply's id. */
async function botReply(conversationId: string, customerText: string | null = 'berapa biaya kuliah?') {
  const inbound =
    customerText === null
      ? await imageMessage(conversationId)
      : await messagingRows.message(db.pool, conversationId, customerText);
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO messaging_messages (conversation_id, direction, type, text, payload, created_at, delivery_status,
       template, in_reply_to)
     VALUES ($1, 'outbound', 'text', 'Silakan daftar di sini', '{}', now(), 'sent', 'register', $2) RETURNING id`,
    [conversationId, inbound],
  );
  return { reply: rows[0]?.id as string, inbound };
}

async function imageMessage(conversationId: string): Promise<string> {
  const id = await messagingRows.message(db.pool, conversationId, 'x');
  await db.pool.query(`UPDATE messaging_messages SET type = 'image', text = NULL WHERE id = $1`, [id]);
  return id;
}

/** A reply an agent wrote. */
async function agentReply(conversationId: string): Promise<string> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO messaging_messages (conversation_id, direction, type, text, payload, created_at, delivery_status,
       author_user_id)
     VALUES ($1, 'outbound', 'text', 'Halo, saya Siti', '{}', now(), 'sent', 'a1') RETURNING id`,
    [conversationId],
  );
  return rows[0]?.id as string;
}

async function feedbackRows(messageId: string) {
  const { rows } = await db.pool.query<{
    user_id: string;
    rating: string | null;
    corrected_intent: string | null;
  }>(
    'SELECT user_id, rating, corrected_intent FROM messaging_message_feedback WHERE message_id = $1 ORDER BY user_id',
    [messageId],
  );
  return rows;
}

async function totalFeedback(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM messaging_message_feedback',
  );
  return rows[0]?.n ?? 0;
}

async function problem(res: Response, status: number, code: string) {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as { code: string; requestId: string; errors?: Array<{ path: string }> };
  expect(body.code).toBe(code);
  expect(body.requestId).toEqual(expect.any(String));
  return body;
}

const put = (client: StaffClient, messageId: string, json: unknown) =>
  client.put(`/api/v1/messages/${messageId}/feedback`, { json });

describe('PUT, GET and DELETE /api/v1/messages/:id/feedback', () => {
  it('creates (201), replaces whole (200), reads mine and everyone’s, and withdraws (204)', async () => {
    const { reply } = await botReply(world.conversationA);
    const first = await put(a1(), reply, {
      rating: 'down',
      correctIntent: 'askFees',
      correctAnswer: 'Rp 5 juta',
    });
    expect(first.status).toBe(201);
    const created = (await first.json()) as Record<string, unknown>;
    expect(created).toMatchObject({
      messageId: reply,
      userId: 'a1',
      rating: 'down',
      correctIntent: 'askFees',
      correctAnswer: 'Rp 5 juta',
    });

    const second = await put(a1(), reply, { rating: 'up' });
    expect(second.status).toBe(200);
    const replaced = (await second.json()) as Record<string, unknown>;
    expect(replaced).toMatchObject({ rating: 'up', correctIntent: null, correctAnswer: null });
    expect(replaced.createdAt).toBe(created.createdAt);
    expect(await put(a2(), reply, { correctIntent: 'wantRegister' }).then((r) => r.status)).toBe(201);

    const read = await a1().get(`/api/v1/messages/${reply}/feedback`);
    expect(read.status).toBe(200);
    const body = (await read.json()) as { mine: { userId: string } | null; all: Array<{ userId: string }> };
    expect(body.mine).toMatchObject({ userId: 'a1', rating: 'up' });
    expect(body.all.map((f) => f.userId).sort()).toEqual(['a1', 'a2']);

    expect((await a1().delete(`/api/v1/messages/${reply}/feedback`)).status).toBe(204);
    expect((await a1().delete(`/api/v1/messages/${reply}/feedback`)).status).toBe(204);
    const after = (await (await a1().get(`/api/v1/messages/${reply}/feedback`)).json()) as typeof body;
    expect(after.mine).toBeNull();
    expect(after.all.map((f) => f.userId)).toEqual(['a2']);
    expect(await feedbackRows(reply)).toEqual([
      { user_id: 'a2', rating: null, corrected_intent: 'wantRegister' },
    ]);
  });

  it('accepts feedback on a real bot reply the pipeline sent', async () => {
    const from = '6281299887766';
    expect((await postWebhook(gateway, textMessage({ from, text: 'halo kak' }))).status).toBe(200);
    const reply = await eventually('the bot reply', 20_000, async () => {
      const { rows } = await db.pool.query<{ id: string; conversation_id: string }>(
        `SELECT m.id, m.conversation_id FROM messaging_messages m
           JOIN messaging_conversations c ON c.id = m.conversation_id
          WHERE c.contact_phone = $1 AND m.direction = 'outbound'`,
        [from],
      );
      return rows[0];
    });
    await db.pool.query('UPDATE messaging_conversations SET cluster_id = $1 WHERE id = $2', [
      world.clusterA,
      reply.conversation_id,
    ]);
    expect((await put(a1(), reply.id, { rating: 'up' })).status).toBe(201);
  });

  it('is only for bot replies: a customer message or an agent’s reply is 422, nothing written', async () => {
    const { inbound } = await botReply(world.conversationA);
    const written = await agentReply(world.conversationA);
    const before = await totalFeedback();
    await problem(await put(a1(), inbound, { rating: 'up' }), 422, 'messaging.feedback.not_bot_reply');
    await problem(await put(admin(), written, { rating: 'up' }), 422, 'messaging.feedback.not_bot_reply');
    expect(await totalFeedback()).toBe(before);
    // Reading one is harmless: there is simply no feedback on it.
    const read = await a1().get(`/api/v1/messages/${inbound}/feedback`);
    expect(await read.json()).toEqual({ mine: null, all: [] });
  });

  it('refuses bad bodies with 400 problems naming the field, and writes nothing', async () => {
    const { reply } = await botReply(world.conversationA);
    const before = await totalFeedback();
    const cases: Array<[unknown, string]> = [
      [{ correctIntent: 'askWeather' }, 'body.correctIntent'],
      [{ correctIntent: '' }, 'body.correctIntent'],
      [{ rating: 'meh' }, 'body.rating'],
      [{ rating: 1 }, 'body.rating'],
      [{ correctAnswer: '' }, 'body.correctAnswer'],
      [{ correctAnswer: '   ' }, 'body.correctAnswer'],
      [{ correctAnswer: 'x'.repeat(4097) }, 'body.correctAnswer'],
      [{}, 'body'],
      [{ rating: null, correctIntent: null, correctAnswer: null }, 'body'],
      [{ rating: 'up', comment: 'x' }, 'body'],
    ];
    for (const [json, field] of cases) {
      const body = await problem(await put(a1(), reply, json), 400, 'validation.failed');
      expect(
        body.errors?.map((e) => e.path),
        JSON.stringify(json).slice(0, 80),
      ).toContain(field);
    }
    await problem(
      await a1().put(`/api/v1/messages/${reply}/feedback`, { raw: '{"rating":' }),
      400,
      'request.malformed_json',
    );
    await problem(await put(a1(), 'not-a-uuid', { rating: 'up' }), 400, 'validation.failed');
    await problem(
      await a1().put(`/api/v1/messages/${reply}/feedback?x=1`, { json: { rating: 'up' } }),
      400,
      'validation.failed',
    );
    expect(await totalFeedback()).toBe(before);
    // The longest answer is taken, emoji included (4096 UTF-16 units are at most 4096 characters).
    expect((await put(a1(), reply, { correctAnswer: '🙏'.repeat(2048) })).status).toBe(201);
  });

  it('answers a caller without a session with 401', async () => {
    const { reply } = await botReply(world.conversationA);
    const res = await fetch(`${gateway.url}/api/v1/messages/${reply}/feedback`);
    await problem(res, 401, 'api.auth.unauthenticated');
  });
});

describe('scope', () => {
  it('an agent of cluster A cannot give, see or withdraw feedback on cluster B’s replies: 404, nothing written', async () => {
    const { reply } = await botReply(world.conversationB);
    expect((await put(b1(), reply, { rating: 'down' })).status).toBe(201);
    const before = await feedbackRows(reply);
    for (const res of [
      await put(a1(), reply, { rating: 'up' }),
      await a1().get(`/api/v1/messages/${reply}/feedback`),
      await a1().delete(`/api/v1/messages/${reply}/feedback`),
    ]) {
      await problem(res, 404, 'messaging.message.not_found');
    }
    expect(await feedbackRows(reply)).toEqual(before);
    // Exactly the answer for a message that does not exist.
    const missing = '5d1f4a0e-2b7c-4e9a-8f3d-6c2b1a0e9d7f';
    await problem(await put(a1(), missing, { rating: 'up' }), 404, 'messaging.message.not_found');
    // An admin sees it, and may give feedback too.
    const seen = (await (await admin().get(`/api/v1/messages/${reply}/feedback`)).json()) as {
      all: Array<{ userId: string }>;
    };
    expect(seen.all.map((f) => f.userId)).toEqual(['b1']);
    expect((await put(admin(), reply, { rating: 'up' })).status).toBe(201);
  });

  it('a conversation routed to no cluster is for admins only', async () => {
    const { reply } = await botReply(world.conversationNone);
    await problem(await put(a1(), reply, { rating: 'up' }), 404, 'messaging.message.not_found');
    expect((await put(admin(), reply, { rating: 'up' })).status).toBe(201);
  });

  it('an agent who leaves the cluster loses it on the next request', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['leaver']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const { reply } = await botReply(conversation);
    const leaver = staffClient(gateway, agent('leaver'));
    expect((await put(leaver, reply, { rating: 'up' })).status).toBe(201);
    await db.pool.query('DELETE FROM messaging_cluster_members WHERE cluster_id = $1', [cluster]);
    await problem(await leaver.get(`/api/v1/messages/${reply}/feedback`), 404, 'messaging.message.not_found');
  });
});

describe('concurrent PUTs', () => {
  it('leave one current feedback per (message, staff member): one 201, the rest 200', async () => {
    const { reply } = await botReply(world.conversationA);
    const bodies = Array.from({ length: 12 }, (_, i) => ({
      rating: i % 2 === 0 ? 'up' : 'down',
      correctAnswer: `answer ${i}`,
    }));
    const responses = await Promise.all(bodies.map((json) => put(a1(), reply, json)));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const { rows } = await db.pool.query<{ rating: string; corrected_answer: string }>(
      'SELECT rating, corrected_answer FROM messaging_message_feedback WHERE message_id = $1',
      [reply],
    );
    expect(rows).toHaveLength(1);
    expect(bodies).toContainEqual({ rating: rows[0]?.rating, correctAnswer: rows[0]?.corrected_answer });
  });

  it('from different staff members, one row each', async () => {
    const { reply } = await botReply(world.conversationA);
    const clients = [a1(), a2(), admin(), a1(), a2(), admin()];
    const responses = await Promise.all(clients.map((client) => put(client, reply, { rating: 'up' })));
    expect(responses.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    expect((await feedbackRows(reply)).map((r) => r.user_id)).toEqual(['a1', 'a2', 'admin-1']);
  });
});

interface Page {
  items: Array<{
    messageId: string;
    userId: string;
    rating: string | null;
    correctIntent: string | null;
    correctAnswer: string | null;
    createdAt: string;
    clusterId: string | null;
    language: string;
    reply: { text: string | null; template: string };
    inbound: { id: string; text: string | null; intent: string | null } | null;
  }>;
  nextCursor: string | null;
}

async function page(client: StaffClient, query: string): Promise<Page> {
  const res = await client.get(`/api/v1/messages/feedback?${query}`);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Page;
}

/** Every item of a walk over all pages, following nextCursor. */
async function walk(client: StaffClient, query: string, between?: () => Promise<void>) {
  const keys: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const current = await page(client, `${query}${cursor === null ? '' : `&cursor=${cursor}`}`);
    keys.push(...current.items.map((i) => `${i.messageId}/${i.userId}`));
    cursor = current.nextCursor;
    if (cursor === null) return keys;
    await between?.();
  }
  throw new Error('the walk did not end');
}

describe('GET /api/v1/messages/feedback', () => {
  it('lists the feedback in scope newest first, with the reply and the customer message, and filters', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['lister']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const lister = staffClient(gateway, agent('lister'));
    const { reply: up } = await botReply(conversation, 'mau daftar');
    const { reply: corrected, inbound } = await botReply(conversation, 'biayanya berapa');
    expect((await put(lister, up, { rating: 'up' })).status).toBe(201);
    expect((await put(lister, corrected, { rating: 'down', correctIntent: 'askFees' })).status).toBe(201);

    const all = await page(lister, 'limit=10');
    expect(all.items.map((i) => i.messageId)).toEqual([corrected, up]);
    expect(all.nextCursor).toBeNull();
    expect(all.items[0]).toMatchObject({
      userId: 'lister',
      clusterId: cluster,
      language: 'id',
      reply: { text: 'Silakan daftar di sini', template: 'register' },
      inbound: { id: inbound, text: 'biayanya berapa' },
    });
    expect((await page(lister, 'rating=up')).items.map((i) => i.messageId)).toEqual([up]);
    expect((await page(lister, 'hasCorrection=true')).items.map((i) => i.messageId)).toEqual([corrected]);
    expect((await page(lister, 'hasCorrection=false')).items.map((i) => i.messageId)).toEqual([up]);
    // Other clusters' feedback is not in an agent's list, and is in an admin's.
    const { reply: other } = await botReply(world.conversationB);
    expect((await put(b1(), other, { rating: 'down' })).status).toBe(201);
    expect(JSON.stringify(await walk(lister, 'limit=100'))).not.toContain(other);
    expect(JSON.stringify(await walk(a1(), 'limit=100'))).not.toContain(other);
    expect(JSON.stringify(await walk(admin(), 'limit=100'))).toContain(other);
  });

  it('walks every page without repeating or skipping a row while feedback is added and changed', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['walker', 'other-walker']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const walker = staffClient(gateway, agent('walker'));
    const replies: string[] = [];
    for (let i = 0; i < 15; i++) replies.push((await botReply(conversation, `pertanyaan ${i}`)).reply);
    // Many in the same millisecond: the order must still be total.
    await Promise.all(replies.map((reply) => put(walker, reply, { rating: 'up' })));
    const existing = new Set(replies.map((reply) => `${reply}/walker`));

    // The row the walk reaches last: the first feedback given.
    const { rows } = await db.pool.query<{ message_id: string }>(
      `SELECT message_id FROM messaging_message_feedback WHERE user_id = 'walker'
        ORDER BY created_at, message_id LIMIT 1`,
    );
    const last = rows[0]?.message_id as string;
    let round = 0;
    const keys = await walk(walker, 'limit=4', async () => {
      round++;
      // New feedback, and a change of the feedback the walk has not reached yet.
      const { reply } = await botReply(conversation, `baru ${round}`);
      await Promise.all([
        put(walker, reply, { rating: 'down' }),
        put(walker, last, { rating: 'down', correctIntent: 'askFees' }),
      ]);
    });
    expect(round).toBeGreaterThan(2);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of existing) expect(keys).toContain(key);
  });

  it('refuses bad queries with 400 problems', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=-1',
      'limit=1e2',
      'limit=abc',
      'rating=meh',
      'hasCorrection=yes',
      'mine=true',
    ]) {
      await problem(await a1().get(`/api/v1/messages/feedback?${query}`), 400, 'validation.failed');
    }
    const otherKind = Buffer.from(JSON.stringify({ k: 'conversations', p: [1, 'x', 'y'] })).toString(
      'base64url',
    );
    const badPosition = Buffer.from(JSON.stringify({ k: 'feedback', p: [1e300, 'x', 'y'] })).toString(
      'base64url',
    );
    for (const cursor of ['not-a-cursor!', 'eyJrIjoieCJ9', otherKind, badPosition]) {
      await problem(
        await a1().get(`/api/v1/messages/feedback?cursor=${cursor}`),
        400,
        'messaging.cursor.invalid',
      );
    }
  });
});

async function goldSet(client: StaffClient): Promise<string> {
  const res = await client.get('/api/v1/messages/feedback/gold-set');
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
  return text;
}

describe('GET /api/v1/messages/feedback/gold-set', () => {
  it('exports each corrected (customer text, intent) once, as lines the classifier’s loader reads', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['exporter', 'exporter-2']);
    const id = await messagingRows.conversation(db.pool, cluster);
    const en = await messagingRows.conversation(db.pool, cluster);
    await db.pool.query(`UPDATE messaging_conversations SET language = 'en' WHERE id = $1`, [en]);
    const exporter = staffClient(gateway, agent('exporter'));
    const exporter2 = staffClient(gateway, agent('exporter-2'));

    const fees = await botReply(id, 'kak, "uang gedung" berapa?\nsama SPP');
    const feesAgain = await botReply(id, 'kak, "uang gedung" berapa?\nsama SPP');
    const visit = await botReply(en, 'can I come see the campus 🙏');
    const ratedOnly = await botReply(id, 'cuma rating');
    const answerOnly = await botReply(id, 'cuma jawaban');
    const image = await botReply(id, null);
    const blank = await botReply(id, '   ');
    const writes = [
      put(exporter, fees.reply, { rating: 'down', correctIntent: 'askFees' }),
      put(exporter2, fees.reply, { correctIntent: 'askFees' }),
      put(exporter, feesAgain.reply, { correctIntent: 'askFees' }),
      put(exporter2, feesAgain.reply, { correctIntent: 'wantRegister' }),
      put(exporter, visit.reply, { correctIntent: 'wantVisitCampus', correctAnswer: 'Yes, any weekday.' }),
      put(exporter, ratedOnly.reply, { rating: 'down' }),
      put(exporter, answerOnly.reply, { correctAnswer: 'Jawaban yang benar' }),
      put(exporter, image.reply, { correctIntent: 'generalInfo' }),
      put(exporter, blank.reply, { correctIntent: 'generalInfo' }),
    ];
    for (const res of await Promise.all(writes)) expect(res.status).toBe(201);

    const text = await goldSet(exporter);
    expect(text.split('\n')).toEqual([
      '{"text": "can I come see the campus 🙏", "intent": "wantVisitCampus", "lang": "en"}',
      '{"text": "kak, \\"uang gedung\\" berapa?\\nsama SPP", "intent": "askFees", "lang": "id"}',
      '{"text": "kak, \\"uang gedung\\" berapa?\\nsama SPP", "intent": "wantRegister", "lang": "id"}',
      '',
    ]);
    const file = path.join(tmp, 'exported.jsonl');
    writeFileSync(file, text);
    expect(loadGoldSet(file).map(({ text: t, intent, lang }) => ({ text: t, intent, lang }))).toEqual([
      { text: 'can I come see the campus 🙏', intent: 'wantVisitCampus', lang: 'en' },
      { text: 'kak, "uang gedung" berapa?\nsama SPP', intent: 'askFees', lang: 'id' },
      { text: 'kak, "uang gedung" berapa?\nsama SPP', intent: 'wantRegister', lang: 'id' },
    ]);
  });

  it('leaves out other clusters’ corrections, streams past one batch, and is audited', async () => {
    const cluster = await messagingRows.cluster(db.pool, ['bulk']);
    const conversation = await messagingRows.conversation(db.pool, cluster);
    // 1,201 distinct corrections (more than two batches of the export), written straight to the tables.
    await db.pool.query(
      `WITH inbound AS (
         INSERT INTO messaging_messages (conversation_id, direction, provider_message_id, type, text, payload,
           created_at, processing_status)
         SELECT $1, 'inbound', 'wamid.bulk.' || n, 'text', 'pertanyaan massal ' || n, '{}', now(), 'processed'
           FROM generate_series(1, 1201) AS n
         RETURNING id
       ), reply AS (
         INSERT INTO messaging_messages (conversation_id, direction, type, text, payload, created_at,
           delivery_status, template, in_reply_to)
         SELECT $1, 'outbound', 'text', 'balasan', '{}', now(), 'sent', 'general_info', id FROM inbound
         RETURNING id
       )
       INSERT INTO messaging_message_feedback (message_id, user_id, corrected_intent, created_at, updated_at)
       SELECT id, 'bulk', 'askPrograms', now(), now() FROM reply`,
      [conversation],
    );
    const bulk = staffClient(gateway, agent('bulk'));
    const lines = (await goldSet(bulk)).split('\n').filter(Boolean);
    expect(lines).toHaveLength(1201);
    expect(new Set(lines).size).toBe(1201);
    const texts = lines.map((line) => (JSON.parse(line) as { text: string }).text);
    expect(texts).toEqual([...texts].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))));
    // Only its own cluster's: none of the other clusters' corrections above.
    expect(lines.join('\n')).not.toContain('uang gedung');

    const adminLines = (await goldSet(admin())).split('\n').filter(Boolean);
    expect(adminLines.length).toBeGreaterThan(1201);
    expect(adminLines.join('\n')).toContain('uang gedung');

    // A bulk read of customers' words: audited with who asked.
    await eventually('the audit row of the export', 10_000, async () => {
      const { rows } = await db.pool.query(
        `SELECT 1 FROM audit_log WHERE kind = 'api.access.sensitive' AND actor = 'bulk'
            AND payload->>'route' = '/api/v1/messages/feedback/gold-set'`,
      );
      return rows.length > 0 ? true : undefined;
    });
  });

  it('refuses query parameters', async () => {
    await problem(await a1().get('/api/v1/messages/feedback/gold-set?since=x'), 400, 'validation.failed');
  });
});
