/**
 * One message must not stall the gateway (plugins/messaging/README.md, "Bounded work per message"):
 * 64 KB texts built to make text processing slow go through the real webhook and the processing queue of
 * a gateway running as its own process, while `GET /health` is probed back to back. Its p99 stays under
 * 50 ms, and every message is processed, with probes sent before the last of them was (so the probes
 * really overlapped the work).
 *
 * On a shared machine other processes delay the probe too, whatever the gateway does. That noise is
 * measured at rest, in the same run and the same way (rounds of rest and work, interleaved), and allowed on
 * top of the 50 ms; on a quiet machine it is a few milliseconds. (Before the extractors were linear, one
 * of these messages held the event loop for 19 s or more.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adversarialTexts } from '../../../test/support/adversarial-text.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { percentile, probeHealth, type HealthSample } from '../../../test/support/health-probe.ts';
import {
  messagingEnv,
  postWebhook,
  startProviderStub,
  textMessage,
  type ProviderStub,
} from '../../../test/support/messaging.ts';
import { processEnv, spawnGateway, type GatewayProcess } from '../../../test/support/process.ts';

const P99_BUDGET_MS = 50;
const ROUNDS = 3;
const REST_MS = 1_500;

let db: TestDatabase;
let provider: ProviderStub;
let child: GatewayProcess | undefined;
let url: string;

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startProviderStub();
  child = spawnGateway({
    args: ['serve'],
    env: processEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'info', ...messagingEnv(provider) }),
  });
  await child.waitForOutput(/"msg":"gateway listening"/);
  url = /"url":"(http:\/\/[^"]+)"/.exec(child.stdout())?.[1] ?? '';
});
afterAll(async () => {
  if (child) {
    child.child.kill('SIGTERM');
    await child.exited;
  }
  await provider?.close();
  await db?.drop();
});

async function processedCount(ids: readonly string[]): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM messaging_messages
      WHERE provider_message_id = ANY($1) AND processing_status = 'processed'`,
    [ids],
  );
  return rows[0]?.n ?? 0;
}

/** Posts one text message per text, from a sender of its own; resolves once all are processed (or 60 s). */
async function sendAndProcess(prefix: string, texts: readonly string[]): Promise<string[]> {
  const ids = texts.map((_, i) => `wamid.${prefix}.${i}`);
  for (const [i, text] of texts.entries()) {
    const from = `628110${String(i).padStart(7, '0')}`;
    const res = await postWebhook({ url }, textMessage({ from, text, id: ids[i] }));
    expect(res.status).toBe(200);
  }
  await eventually(`the ${prefix} messages processed`, 60_000, async () =>
    (await processedCount(ids)) === ids.length ? true : undefined,
  ).catch(() => undefined);
  return ids;
}

function summary(samples: readonly HealthSample[]) {
  const latencies = samples.map((s) => s.ms);
  return {
    probes: samples.length,
    p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    maxMs: Math.round(Math.max(...latencies)),
  };
}

describe('adversarial 64 KB messages', () => {
  it(
    'keep GET /health under 50 ms at p99 while they are stored and processed',
    { timeout: 240_000 },
    async () => {
      // Warm up on the same kinds of text, 1 KB long: the first run of a code path or an expression is
      // interpreted and compiled on the way (tens of milliseconds, once per process), which is not what is
      // measured here.
      await sendAndProcess('warm', Object.values(adversarialTexts(1_024)));
      const texts = Object.values(adversarialTexts());
      const rest: HealthSample[] = [];
      const during: HealthSample[] = [];
      const ids: string[] = [];
      let overlapping = 0;
      // Rounds of rest then work, so that both see the same background load.
      for (let round = 0; round < ROUNDS; round++) {
        const restUntil = performance.now() + REST_MS;
        rest.push(...(await probeHealth(url, () => performance.now() > restUntil)));
        let stop = false;
        const probing = probeHealth(url, () => stop);
        const roundIds = await sendAndProcess(`adversarial.${round}`, texts).finally(() => {
          stop = true;
        });
        const samples = await probing;
        during.push(...samples);
        ids.push(...roundIds);
        const { rows } = await db.pool.query<{ last: Date | null }>(
          'SELECT max(processed_at) AS last FROM messaging_messages WHERE provider_message_id = ANY($1)',
          [roundIds],
        );
        const lastProcessed = rows[0]?.last?.getTime() ?? Number.POSITIVE_INFINITY;
        overlapping += samples.filter((s) => s.sentAt <= lastProcessed).length;
      }
      const figures = { rest: summary(rest), during: summary(during) };
      process.stdout.write(`GET /health latency: ${JSON.stringify(figures)}\n`);

      expect(figures.during.p99Ms, JSON.stringify(figures)).toBeLessThan(P99_BUDGET_MS + figures.rest.p99Ms);
      expect(await processedCount(ids)).toBe(ids.length);
      // The probes ran while the messages were processed, not only before or after.
      expect(overlapping).toBeGreaterThanOrEqual(5 * ROUNDS);
    },
  );
});
