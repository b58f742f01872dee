/**
 * What happens when things fail: the language-model tier against a stand-in
 * OpenAI-compatible server (a valid answer is used; slow, malformed or 500 answers fall through and the
 * reply still goes out), send API failures retried, processing failures retried then dead-lettered
 * without blocking the conversation for ever, and the metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelStandIn, type ModelStandIn } from '../../../test/support/model-stand-in.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createManualClock } from '../../../test/support/core.ts';
import {
  postWebhook,
  startMessagingGateway,
  startProviderStub,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { promtoolCheck } from '../../../test/support/tools.ts';

let db: TestDatabase;
let gateway: TestGateway;
let provider: ProviderStub;
let model: ModelStandIn;
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  model = await startModelStandIn();
  gateway = await startMessagingGateway({
    databaseUrl: db.url,
    provider,
    clock,
    env: {
      LLM_BASE_URL: model.baseUrl,
      LLM_MODEL: 'stand-in-1',
      LLM_API_KEY: 'llm-key',
      LLM_TIMEOUT_MS: '300',
      MESSAGING_MAX_ATTEMPTS: '2',
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await model?.close();
  await provider?.close();
  await db?.drop();
});

async function inbound(from: string) {
  const { rows } = await db.pool.query<{
    tier: number | null;
    intent: string | null;
    processing_status: string;
    attempts: number;
  }>(
    `SELECT m.tier, m.intent, m.processing_status, m.attempts FROM messaging_messages m
       JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.direction = 'inbound' ORDER BY m.seq`,
    [from],
  );
  return rows;
}

async function outbound(from: string) {
  const { rows } = await db.pool.query<{
    template: string;
    delivery_status: string;
    send_attempts: number;
    delivery_error: string | null;
    next_send_at: Date | null;
    text: string;
  }>(
    `SELECT m.template, m.delivery_status, m.send_attempts, m.delivery_error, m.next_send_at, m.text
       FROM messaging_messages m
       JOIN messaging_conversations c ON c.id = m.conversation_id
      WHERE c.contact_phone = $1 AND m.direction = 'outbound' ORDER BY m.seq`,
    [from],
  );
  return rows;
}

// Nothing in tiers 1-2 recognises this, so the model is asked.
const UNKNOWN = 'zxqv plonk wibbly';

describe('the language-model tier', () => {
  it('uses a valid model answer (tier 3)', async () => {
    model.answerWith(() => ({ json: { intent: 'askFees', confidence: 0.92 } }));
    const from = '6281322220001';
    await postWebhook(gateway, textMessage({ from, text: UNKNOWN }));
    await expect.poll(async () => (await outbound(from)).length).toBe(1);
    expect(await inbound(from)).toMatchObject([
      { tier: 3, intent: 'askFees', processing_status: 'processed' },
    ]);
    expect((await outbound(from))[0]?.template).toBe('fees');
    const request = model.requests.at(-1);
    expect(request?.authorization).toBe('Bearer llm-key');
    expect(request?.body.model).toBe('stand-in-1');
  });

  it.each([
    ['slower than LLM_TIMEOUT_MS', '6281322220011', { hang: true } as const],
    ['malformed JSON content', '6281322220012', { content: 'certainly! the intent is fees' }],
    ['HTTP 500', '6281322220013', { status: 500 }],
    ['an intent that does not exist', '6281322220014', { json: { intent: 'orderPizza', confidence: 0.99 } }],
  ])(
    'falls through to the default handler on %s, and the reply still goes out',
    async (_name, from, answer) => {
      model.answerWith(() => answer);
      await postWebhook(gateway, textMessage({ from, text: UNKNOWN }));
      await expect.poll(async () => (await outbound(from)).length).toBe(1);
      expect(await inbound(from)).toMatchObject([
        { tier: 4, intent: 'generalInfo', processing_status: 'processed' },
      ]);
      expect((await outbound(from))[0]?.template).toMatch(/^general_info/);
      await expect.poll(() => provider.sent.some((s) => s.body.to === from)).toBe(true);
    },
  );
});

describe('send API failures', () => {
  it('retries a reply the send API refused, and sends it once it accepts', async () => {
    model.answerWith(() => ({ json: { intent: 'generalInfo', confidence: 0.9 } }));
    const from = '6281322220100';
    provider.failNext(2);
    await postWebhook(gateway, textMessage({ from, text: 'halo' }));
    // Attempt n has failed once its failure is recorded: an error, and a retry time instead of the send's
    // lease (which runs for the send timeout plus a minute).
    const failed = async (attempts: number) => {
      const reply = (await outbound(from))[0];
      return (
        reply?.send_attempts === attempts &&
        reply.delivery_error !== null &&
        (reply.next_send_at?.getTime() ?? Infinity) - clock.nowMs() < 60_000
      );
    };
    await expect.poll(() => failed(1)).toBe(true);
    // The retry waits for its backoff; the clock moves instead of the test sleeping.
    clock.advance(2_000);
    await expect.poll(() => failed(2)).toBe(true);
    clock.advance(10_000);
    await expect.poll(async () => (await outbound(from))[0]?.delivery_status).toBe('sent');
    expect(await outbound(from)).toMatchObject([{ delivery_status: 'sent', send_attempts: 3 }]);
    expect(provider.sent.filter((s) => s.body.to === from)).toHaveLength(1);
  });
});

describe('reply order', () => {
  it('sends a conversation’s replies in order: a failed one holds back the replies after it, of the same message and of later ones', async () => {
    model.answerWith(() => ({ json: { intent: 'generalInfo', confidence: 0.9 } }));
    const from = '6281322220101';
    const sentTexts = () => provider.sent.filter((s) => s.body.to === from).map((s) => s.body.text?.body);
    await postWebhook(gateway, textMessage({ from, text: 'saya mau daftar' }));
    await expect.poll(async () => (await outbound(from))[0]?.delivery_status).toBe('sent');

    // Two replies (the answer, then the next question); the send API refuses the first.
    provider.failNext(1);
    await postWebhook(gateway, textMessage({ from, text: 'saya Budi, berapa biaya kuliahnya?' }));
    await expect
      .poll(async () => (await outbound(from)).map((r) => [r.template, r.delivery_status, r.send_attempts]))
      .toEqual([
        ['ask_name', 'sent', 1],
        ['fees', 'pending', 1],
        // Never tried: it waits behind the failed one.
        ['ask_email_after_name', 'pending', 0],
      ]);
    // A later message's reply waits too.
    await postWebhook(gateway, textMessage({ from, text: 'budi@example.com' }));
    await expect.poll(async () => (await outbound(from)).length).toBe(4);
    expect((await outbound(from))[3]).toMatchObject({ template: 'lead_captured', send_attempts: 0 });
    expect(sentTexts()).toHaveLength(1);

    clock.advance(2_000);
    await expect
      .poll(async () => (await outbound(from)).map((r) => r.delivery_status))
      .toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(sentTexts()).toEqual((await outbound(from)).map((r) => r.text));
    expect((await outbound(from)).map((r) => r.send_attempts)).toEqual([1, 2, 1, 1]);
  });
});

describe('a send that never ends', () => {
  it('sends a reply again once the lease of the worker it was handed to runs out (as after a crash)', async () => {
    model.answerWith(() => ({ json: { intent: 'generalInfo', confidence: 0.9 } }));
    const from = '6281322220102';
    provider.holdNext(1);
    await postWebhook(gateway, textMessage({ from, text: 'halo' }));
    await expect.poll(() => provider.held()).toBe(1);
    expect(await outbound(from)).toMatchObject([{ delivery_status: 'pending', send_attempts: 1 }]);
    // The lease: the send timeout (default 10 s) plus a minute.
    clock.advance(70_001);
    await expect.poll(async () => (await outbound(from))[0]?.delivery_status).toBe('sent');
    expect(await outbound(from)).toMatchObject([{ delivery_status: 'sent', send_attempts: 2 }]);
    expect(provider.sent.filter((s) => s.body.to === from)).toHaveLength(1);
    provider.releaseHeld();
  });
});

describe('processing failures', () => {
  it('retries a failing message, dead-letters it after MESSAGING_MAX_ATTEMPTS, then goes on with the conversation', async () => {
    const from = '6281322220200';
    // The database refuses this one lead (a trigger standing in for a poison message): the message that
    // writes it cannot be processed, every time. It fails slowly, so the clock moves on (below) while the
    // attempt is still failing: the retry must be due from the attempt's start, whatever the failure took.
    await db.pool.query(`
      CREATE FUNCTION test_reject_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name = 'Dewi Lestari' THEN
          PERFORM pg_sleep(0.5);
          RAISE EXCEPTION 'poison lead rejected';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_reject_poison BEFORE INSERT OR UPDATE ON messaging_leads
        FOR EACH ROW EXECUTE FUNCTION test_reject_poison();`);
    try {
      await postWebhook(
        gateway,
        textMessage({ from, text: 'nama saya Dewi Lestari', at: new Date(clock.nowMs()) }),
      );
      await expect.poll(async () => (await inbound(from))[0]?.attempts).toBe(1);
      // A later message of the same conversation waits behind it (order first).
      await postWebhook(gateway, textMessage({ from, text: 'halo', at: new Date(clock.nowMs() + 1_000) }));
      expect((await inbound(from))[1]?.processing_status).toBe('queued');
      clock.advance(1_000);
      await expect.poll(async () => (await inbound(from))[0]?.processing_status).toBe('dead');
      expect((await inbound(from))[0]?.attempts).toBe(2);
    } finally {
      await db.pool.query(
        'DROP TRIGGER test_reject_poison ON messaging_leads; DROP FUNCTION test_reject_poison();',
      );
    }
    await expect.poll(async () => (await inbound(from))[1]?.processing_status).toBe('processed');
    const { rows } = await db.pool.query<{ last_error: string }>(
      `SELECT m.last_error FROM messaging_messages m JOIN messaging_conversations c ON c.id = m.conversation_id
        WHERE c.contact_phone = $1 AND m.processing_status = 'dead'`,
      [from],
    );
    expect(rows[0]?.last_error).toMatch(/poison lead rejected/);
  });
});

describe('metrics', () => {
  it('exposes queue, processing, classification and webhook metrics that pass promtool', async () => {
    const text = await (await fetch(`${gateway.metricsUrl}/metrics`)).text();
    for (const name of [
      'gatehouse_messaging_webhook_ack_seconds_bucket',
      'gatehouse_messaging_processing_seconds_bucket',
      'gatehouse_messaging_classifications_total',
      'gatehouse_messaging_queue_depth{state="queued"}',
      'gatehouse_messaging_queue_oldest_age_seconds',
      'gatehouse_messaging_sends_total',
    ]) {
      expect(text, name).toContain(name);
    }
    const result = await promtoolCheck(text);
    if (result) expect(result).toEqual({ code: 0, stderr: '', stdout: '' });
  });
});
