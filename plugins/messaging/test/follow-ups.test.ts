/**
 * Follow-ups (plugins/messaging/README.md, "Follow-ups") on a moved clock: a rule fires once at its due time,
 * a text inside the 24-hour window, a template outside it, `skipped_outside_window` without one; the contact
 * writing or an agent holding the conversation cancels it; the provider's 131047 becomes
 * `failed_reengagement`; two replicas never send one follow-up twice; one pending per conversation and rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/core.ts';
import type { TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import {
  PHONE_NUMBER_ID,
  postWebhook,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { messagingRows } from '../../../test/support/realtime.ts';
import { startStaffApiHarness, type StaffApiHarness } from '../../../test/support/staff-api-harness.ts';
import { agent, staffApiEnv, staffClient, type StaffClient } from '../../../test/support/staff-api.ts';

const HOUR = 3_600_000;
// Starts at the real time: staff session tokens are minted with it, and live long enough for the moves.
const clock = createManualClock(Date.now());
const timing = { clock, sessionMaxAgeSeconds: 30 * 24 * 3600 };
let db: TestDatabase;
let gateway: TestGateway;
let stop: StaffApiHarness['stop'] | undefined;
let provider: ProviderStub;
let admin: StaffClient;
let rina: StaffClient;
let cluster: string;
let phones = 0;

// An agent's reply holds a conversation for 4 hours, longer than the rules' 2-hour delays.
const followUpEnv = {
  MESSAGING_FOLLOW_UP_INTERVAL_MS: '25',
  MESSAGING_HANDOFF_IDLE_MS: String(4 * HOUR),
};
const env = () => staffApiEnv(provider, followUpEnv);

beforeAll(async () => {
  ({ db, provider, gateway, admin, stop } = await startStaffApiHarness({ env: followUpEnv, clock, timing }));
  cluster = await messagingRows.cluster(db.pool, ['agent-rina']);
  await db.pool.query('UPDATE messaging_clusters SET phone_number_id = $1 WHERE id = $2', [
    PHONE_NUMBER_ID,
    cluster,
  ]);
  rina = staffClient(gateway, agent('agent-rina'), timing);
});
afterAll(() => stop?.());

interface FollowUp {
  id: string;
  status: string;
  dueAt: string;
  ruleId: string | null;
  lastError: string | null;
  messageId: string | null;
}

/** A fresh rule (earlier rules deleted), created a second after everything before it. */
async function rule(body: Record<string, unknown>): Promise<string> {
  for (const { id } of ((await (await admin.get('/api/v1/follow-up/rules')).json()) as { items: FollowUp[] })
    .items)
    expect((await admin.delete(`/api/v1/follow-up/rules/${id}`)).status).toBe(204);
  clock.advance(1_000);
  const res = await admin.post('/api/v1/follow-up/rules', { json: body });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The contact writes; answers the conversation once the message is processed. */
async function contactWrites(from: string, text = 'halo'): Promise<string> {
  const before = await processedCount(from);
  expect((await postWebhook(gateway, textMessage({ from, text, at: clock.now() }))).status).toBe(200);
  return eventually('the message processed', 10_000, async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      'SELECT id FROM messaging_conversations WHERE contact_phone = $1',
      [from],
    );
    return (await processedCount(from)) > before ? rows[0]?.id : undefined;
  });
}

async function processedCount(from: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.processing_status = 'processed'`,
    [from],
  );
  return rows[0]?.n ?? 0;
}

const newPhone = () =>
  `62813${String(process.pid % 1000).padStart(3, '0')}${String(++phones).padStart(4, '0')}`;

async function queueOf(conversationId: string, client = admin): Promise<FollowUp[]> {
  const res = await client.get(`/api/v1/follow-up/queue?conversationId=${conversationId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: FollowUp[] }).items;
}

const followUpsSentTo = (phone: string, text: string) =>
  provider.sent.filter((s) => s.body.to === phone && (s.body.text?.body === text || s.body.template));

/** Waits for at least one further pass: a manual follow-up on a marker conversation gets settled. */
async function aPassRan(): Promise<void> {
  const marker = await messagingRows.conversation(db.pool, cluster);
  const res = await rina.post('/api/v1/follow-up/trigger', {
    json: { conversationId: marker, text: 'marker' },
  });
  expect(res.status).toBe(202);
  await eventually('the marker settled', 10_000, async () =>
    (await queueOf(marker)).every((f) => f.status !== 'pending') ? true : undefined,
  );
}

async function leadIncomplete(conversationId: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO messaging_leads (conversation_id, status, created_at, updated_at)
     VALUES ($1, 'incomplete', $2, $2) ON CONFLICT (conversation_id) DO NOTHING`,
    [conversationId, clock.now()],
  );
}

describe('a lead_incomplete rule', () => {
  it('fires once at its due time: a text inside the 24-hour window', async () => {
    await rule({ kind: 'lead_incomplete', delayHours: 2, text: 'Masih tertarik? Balas nama Anda.' });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    await leadIncomplete(conversation);
    const start = clock.nowMs();
    const [pending] = await eventually('scheduled', 10_000, async () => {
      const queue = await queueOf(conversation);
      return queue.length === 1 ? queue : undefined;
    });
    expect(pending).toMatchObject({ status: 'pending', dueAt: new Date(start + 2 * HOUR).toISOString() });

    clock.advance(HOUR);
    await aPassRan();
    expect(followUpsSentTo(phone, 'Masih tertarik? Balas nama Anda.')).toHaveLength(0);

    clock.advance(HOUR);
    await eventually('sent', 10_000, () =>
      Promise.resolve(followUpsSentTo(phone, 'Masih tertarik? Balas nama Anda.').length === 1 || undefined),
    );
    clock.advance(5 * HOUR);
    await aPassRan();
    expect(followUpsSentTo(phone, 'Masih tertarik? Balas nama Anda.')).toHaveLength(1);
    const queue = await queueOf(conversation);
    expect(queue).toHaveLength(1);
    expect(queue[0]?.status).toBe('sent');
    expect(queue[0]?.messageId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('is cancelled when the contact writes first, and counts again from the new message', async () => {
    await rule({ kind: 'lead_incomplete', delayHours: 2, text: 'Halo lagi?' });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    await leadIncomplete(conversation);
    await eventually('scheduled', 10_000, async () =>
      (await queueOf(conversation)).length ? true : undefined,
    );
    clock.advance(HOUR);
    await contactWrites(phone, 'masih di sini');
    const queue = await eventually('rescheduled', 10_000, async () => {
      const rows = await queueOf(conversation);
      return rows.length === 2 ? rows : undefined;
    });
    expect(queue.map((f) => f.status).sort()).toEqual(['cancelled', 'pending']);
    expect(queue.find((f) => f.status === 'cancelled')?.lastError).toBe('the contact wrote again');
    expect(followUpsSentTo(phone, 'Halo lagi?')).toHaveLength(0);
  });

  it('is cancelled when an agent holds the conversation', async () => {
    await rule({ kind: 'lead_incomplete', delayHours: 2, text: 'Ada yang bisa dibantu?' });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    await leadIncomplete(conversation);
    await eventually('scheduled', 10_000, async () =>
      (await queueOf(conversation)).length ? true : undefined,
    );
    expect(
      (
        await rina.post(`/api/v1/agent/conversations/${conversation}/replies`, {
          json: { text: 'Rina di sini.' },
        })
      ).status,
    ).toBe(201);
    clock.advance(2 * HOUR);
    const [cancelled] = await eventually('cancelled', 10_000, async () => {
      const rows = await queueOf(conversation);
      return rows[0]?.status === 'cancelled' ? rows : undefined;
    });
    expect(cancelled?.lastError).toBe('an agent holds the conversation');
    expect(followUpsSentTo(phone, 'Ada yang bisa dibantu?')).toHaveLength(0);
  });
});

describe('a no_reply rule outside the 24-hour window', () => {
  it('sends the template', async () => {
    await rule({
      kind: 'no_reply',
      delayHours: 30,
      text: 'Tidak dikirim di luar jendela.',
      template: { name: 'follow_up_lead', languageCode: 'id', parameters: ['Budi'] },
    });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    // The bot answered: the rule counts from its reply.
    await eventually('scheduled', 10_000, async () =>
      (await queueOf(conversation)).length ? true : undefined,
    );
    clock.advance(30 * HOUR);
    const sent = await eventually('template sent', 10_000, () => {
      const found = provider.sent.filter((s) => s.body.to === phone && s.body.type === 'template');
      return Promise.resolve(found.length === 1 ? found : undefined);
    });
    expect(sent[0]?.body.template).toEqual({
      name: 'follow_up_lead',
      language: { code: 'id' },
      components: [{ type: 'body', parameters: [{ type: 'text', text: 'Budi' }] }],
    });
    await eventually('sent', 10_000, async () =>
      (await queueOf(conversation))[0]?.status === 'sent' ? true : undefined,
    );
  });

  it('without a template is skipped_outside_window', async () => {
    await rule({ kind: 'no_reply', delayHours: 25, text: 'Hanya teks.' });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    await eventually('scheduled', 10_000, async () =>
      (await queueOf(conversation)).length ? true : undefined,
    );
    clock.advance(25 * HOUR);
    await eventually('skipped', 10_000, async () =>
      (await queueOf(conversation))[0]?.status === 'skipped_outside_window' ? true : undefined,
    );
    expect(followUpsSentTo(phone, 'Hanya teks.')).toHaveLength(0);
  });
});

describe('the provider’s re-engagement error', () => {
  it('131047 marks the follow-up failed_reengagement', async () => {
    await rule({ kind: 'no_reply', delayHours: 720, text: 'tidak relevan' });
    const phone = newPhone();
    const conversation = await contactWrites(phone);
    await aPassRan();
    provider.refuseNext(1, 400, 131047);
    const res = await rina.post('/api/v1/follow-up/trigger', {
      json: { conversationId: conversation, text: 'Halo?' },
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as FollowUp;
    const failed = await eventually('failed_reengagement', 10_000, async () => {
      const found = (await queueOf(conversation)).find((f) => f.id === id);
      return found?.status === 'failed_reengagement' ? found : undefined;
    });
    expect(failed.lastError).toContain('131047');
    const { rows } = await db.pool.query<{ delivery_status: string }>(
      'SELECT delivery_status FROM messaging_messages WHERE id = $1',
      [failed.messageId],
    );
    expect(rows[0]?.delivery_status).toBe('failed');
  });
});

describe('concurrency', () => {
  it('two replicas never send the same follow-up twice', async () => {
    const second = await startTestGateway({ databaseUrl: db.url, env: env(), clock });
    try {
      const conversations: Array<{ id: string; phone: string }> = [];
      for (let i = 0; i < 30; i++) {
        const id = await messagingRows.conversation(db.pool, cluster);
        const { rows } = await db.pool.query<{ contact_phone: string }>(
          'UPDATE messaging_conversations SET last_inbound_at = $2 WHERE id = $1 RETURNING contact_phone',
          [id, clock.now()],
        );
        conversations.push({ id, phone: rows[0]?.contact_phone as string });
      }
      // All due at once, in one statement: both replicas' passes race for them.
      await db.pool.query(
        `INSERT INTO messaging_follow_ups (conversation_id, manual, basis_at, due_at, text, created_at, updated_at)
         SELECT id, true, $2, $2, 'Sekali saja.', $2, $2 FROM unnest($1::uuid[]) AS u(id)`,
        [conversations.map((c) => c.id), clock.now()],
      );
      await eventually('all sent', 20_000, () =>
        Promise.resolve(
          conversations.every((c) => followUpsSentTo(c.phone, 'Sekali saja.').length >= 1) || undefined,
        ),
      );
      await aPassRan();
      for (const c of conversations) expect(followUpsSentTo(c.phone, 'Sekali saja.')).toHaveLength(1);
      const { rows } = await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM messaging_messages WHERE conversation_id = ANY($1::uuid[]) AND direction = 'outbound'`,
        [conversations.map((c) => c.id)],
      );
      expect(rows[0]?.n).toBe(30);
    } finally {
      await second.close();
    }
  });

  it('one pending follow-up per conversation and rule, however parallel the inserts', async () => {
    const ruleId = await rule({ kind: 'no_reply', delayHours: 700, text: 'x' });
    const conversation = await messagingRows.conversation(db.pool, cluster);
    const inserts = Array.from({ length: 10 }, (_, i) =>
      db.pool
        .query(
          `INSERT INTO messaging_follow_ups (conversation_id, rule_id, basis_at, due_at, text, created_at, updated_at)
           VALUES ($1, $2, $3, $3, 'x', $3, $3)`,
          [conversation, ruleId, new Date(clock.nowMs() + HOUR * 24 * 400 + i)],
        )
        .then(
          () => 'inserted',
          (err: { code?: string }) => err.code,
        ),
    );
    expect((await Promise.all(inserts)).sort()).toEqual([
      '23505',
      '23505',
      '23505',
      '23505',
      '23505',
      '23505',
      '23505',
      '23505',
      '23505',
      'inserted',
    ]);
    // Manual ones: one pending per conversation, the others refused with 409.
    const other = await messagingRows.conversation(db.pool, cluster);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        rina.post('/api/v1/follow-up/trigger', {
          json: { conversationId: other, template: { name: 'hello', languageCode: 'en_US' } },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 202).length).toBeLessThanOrEqual(6);
    expect(statuses.every((s) => s === 202 || s === 409)).toBe(true);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messaging_follow_ups WHERE conversation_id = $1 AND status = 'pending'`,
      [other],
    );
    expect(rows[0]?.n).toBeLessThanOrEqual(1);
  });
});

describe('the routes', () => {
  it('rules are for admins; bad input is a 400 problem', async () => {
    const refused = await rina.get('/api/v1/follow-up/rules');
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('messaging.staff.admin_required');
    const bad = await admin.post('/api/v1/follow-up/rules', { json: { kind: 'no_reply', delayHours: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const neither = await admin.post('/api/v1/follow-up/rules', {
      json: { kind: 'no_reply', delayHours: 3 },
    });
    expect(neither.status).toBe(400);
  });

  it('an agent sees and cancels only their scope; a cancelled one cannot be cancelled again', async () => {
    const elsewhere = await messagingRows.conversation(db.pool, null);
    expect(
      (await rina.post('/api/v1/follow-up/trigger', { json: { conversationId: elsewhere, text: 'x' } }))
        .status,
    ).toBe(404);
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO messaging_follow_ups (conversation_id, manual, basis_at, due_at, text, created_at, updated_at)
       VALUES ($1, true, $2, $3, 'later', $2, $2) RETURNING id`,
      [elsewhere, clock.now(), new Date(clock.nowMs() + 1000 * HOUR)],
    );
    const id = rows[0]?.id as string;
    expect(await queueOf(elsewhere, rina)).toEqual([]);
    expect((await rina.post(`/api/v1/follow-up/queue/${id}/cancel`)).status).toBe(404);
    const cancelled = await admin.post(`/api/v1/follow-up/queue/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id, status: 'cancelled' });
    const again = await admin.post(`/api/v1/follow-up/queue/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('messaging.follow_up.not_pending');
  });
});
