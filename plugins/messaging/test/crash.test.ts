/**
 * Durability (plugins/messaging/README.md, "How a message flows"): kill the real gateway process with SIGKILL
 * while its queue is being worked through, restart it, and every persisted message is processed exactly once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import {
  messagingEnv,
  postWebhook,
  startProviderStub,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import {
  endsWithTest,
  freePort,
  processEnv,
  spawnGateway,
  type GatewayProcess,
} from '../../../test/support/process.ts';

const LISTENING = /"msg":"gateway listening"/;
const MESSAGES = 120;
let db: TestDatabase;
let provider: ProviderStub;
let model: { url: string; close(): Promise<void> };

/** A language model that takes 100 ms per answer, so the queue takes a while to drain. */
async function startSlowModel(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            choices: [{ message: { content: '{"intent":"generalInfo","confidence":0.9}' } }],
          }),
        );
      }, 100);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  model = await startSlowModel();
});
afterAll(async () => {
  await model?.close();
  await provider?.close();
  await db?.drop();
});

/** A gateway process that ends with its test, even when the test times out. */
async function start(port: number): Promise<GatewayProcess> {
  const gateway = endsWithTest(
    spawnGateway({
      args: ['serve'],
      env: processEnv({
        DATABASE_URL: db.url,
        PORT: String(port),
        ...messagingEnv(provider, {
          LLM_BASE_URL: model.url,
          LLM_MODEL: 'slow',
          LLM_TIMEOUT_MS: '2000',
          MESSAGING_BATCH_SIZE: '10',
          MESSAGING_WORKER_CONCURRENCY: '1',
          // Replies the killed process was sending (and those behind them) go to the restarted one once
          // their lease runs out: short here, so the test sees it happen within its time.
          MESSAGING_SEND_TIMEOUT_MS: '1000',
          MESSAGING_SEND_LEASE_MS: '3000',
        }),
      }),
    }),
  );
  await gateway.waitForOutput(LISTENING);
  return gateway;
}

const counts = async () =>
  (
    await db.pool.query<{ processed: number; queued: number; replies: number; replied: number }>(
      `SELECT count(*) FILTER (WHERE processing_status = 'processed')::int AS processed,
              count(*) FILTER (WHERE processing_status = 'queued')::int AS queued,
              count(*) FILTER (WHERE direction = 'outbound')::int AS replies,
              count(DISTINCT in_reply_to)::int AS replied
         FROM messaging_messages`,
    )
  ).rows[0] as { processed: number; queued: number; replies: number; replied: number };

describe('SIGKILL mid-queue', () => {
  it('processes every persisted message exactly once across a kill and a restart', async () => {
    const port = await freePort();
    const first = await start(port);
    const base = { url: `http://127.0.0.1:${port}` };
    // The send API hangs for the first process: the kill always finds replies in flight.
    provider.holdNext(MESSAGES);
    // Messages nothing but the (slow) model can classify, from 40 contacts.
    for (let i = 0; i < MESSAGES; i++) {
      const res = await postWebhook(
        base,
        textMessage({ from: `62813444${String(i % 40).padStart(4, '0')}`, text: `zxqv ${i}` }),
      );
      expect(res.status).toBe(200);
    }
    // Some processed, most not: kill it there.
    await expect.poll(async () => (await counts()).processed, { timeout: 10_000 }).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    await first.exited;
    provider.holdNext(0);
    provider.releaseHeld();
    const atKill = await counts();
    expect(atKill.queued).toBeGreaterThan(0);

    const second = await start(port);
    try {
      await expect
        .poll(async () => (await counts()).processed, { timeout: 30_000, interval: 100 })
        .toBe(MESSAGES);
      const after = await counts();
      // One reply per inbound message: nothing processed twice, nothing lost.
      expect(after).toMatchObject({ queued: 0, replies: MESSAGES, replied: MESSAGES });
      const { rows } = await db.pool.query<{ attempts: number; n: number }>(
        "SELECT attempts, count(*)::int AS n FROM messaging_messages WHERE direction = 'inbound' GROUP BY attempts",
      );
      // The batch the kill interrupted was counted as an attempt; nothing needed more than two.
      expect(rows.every((row) => row.attempts >= 1 && row.attempts <= 2)).toBe(true);
      // Every reply reaches the send API (at least once; exactly once unless the kill hit a send in flight).
      await expect
        .poll(
          async () =>
            Number(
              (
                await db.pool.query<{ n: string }>(
                  "SELECT count(*) AS n FROM messaging_messages WHERE delivery_status = 'sent'",
                )
              ).rows[0]?.n,
            ),
          { timeout: 10_000 },
        )
        .toBe(MESSAGES);
      expect(provider.sent.length).toBeGreaterThanOrEqual(MESSAGES);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 90_000);
});
