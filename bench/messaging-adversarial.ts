/**
 * `npm run bench:messaging-adversarial`: how long `GET /health` takes on the real gateway (production
 * settings, auth + messaging, the bench's embedded PostgreSQL, a stand-in send API on loopback) while
 * 64 KB texts built to make text processing slow (test/support/adversarial-text.ts) are stored and
 * processed, against the same probe at rest, measured in the same run. Rounds alternate rest and work so
 * that both see the same background load (plugins/messaging/README.md, "Bounded work per message";
 * target: p99 under 50 ms while the messages are processed).
 * Output: JSON on stdout. Options (env): BENCH_ROUNDS (default 5), BENCH_REST_SECONDS per round (default 2).
 */
import { cpus } from 'node:os';
import pg from 'pg';
import { adversarialTexts } from '../test/support/adversarial-text.ts';
import { percentile, probeHealth, type HealthSample } from '../test/support/health-probe.ts';
import { textMessage } from '../test/support/whatsapp.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { startMessagingProcess, startSendApi } from './lib/messaging-gateway.ts';
import type { BenchProcess } from './lib/processes.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const restSeconds = Number(process.env.BENCH_REST_SECONDS ?? 2);

function summary(samples: readonly HealthSample[]) {
  const latencies = samples.map((s) => s.ms);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    probes: samples.length,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(...latencies)),
  };
}

async function main(): Promise<void> {
  const postgres = await startBenchPostgres();
  const sendApi = await startSendApi();
  const db = new pg.Client({ connectionString: postgres.url });
  let gateway: BenchProcess | undefined;
  try {
    gateway = await startMessagingProcess({
      name: 'gateway-messaging-adversarial',
      databaseUrl: postgres.url,
      sendApi,
    });
    const url = gateway.url;
    await db.connect();

    let batch = 0;
    /** Posts one message per text, each from its own sender; resolves once all of them are processed. */
    const sendAndProcess = async (texts: readonly string[]): Promise<void> => {
      batch++;
      const ids = texts.map((_, i) => `wamid.adversarial.${batch}.${i}`);
      for (const [i, text] of texts.entries()) {
        const from = `628110${String(i).padStart(7, '0')}`;
        const res = await fetch(`${url}/webhook/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(textMessage({ from, text, id: ids[i] })),
        });
        if (res.status !== 200) throw new Error(`the webhook answered ${res.status}`);
      }
      const deadline = Date.now() + 600_000;
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM messaging_messages
            WHERE provider_message_id = ANY($1) AND processing_status = 'processed'`,
          [ids],
        );
        if (rows[0]?.n === ids.length) return;
        if (Date.now() > deadline) throw new Error('the adversarial messages were not processed');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    // Warm-up on the same kinds of text, 1 KB long (code paths and expressions compiled once).
    await sendAndProcess(Object.values(adversarialTexts(1_024)));
    const texts = Object.values(adversarialTexts());
    const rest: HealthSample[] = [];
    const during: HealthSample[] = [];
    let processingSeconds = 0;
    for (let round = 0; round < rounds; round++) {
      const restUntil = performance.now() + restSeconds * 1000;
      rest.push(...(await probeHealth(url, () => performance.now() > restUntil)));
      let stop = false;
      const probing = probeHealth(url, () => stop);
      const started = performance.now();
      await sendAndProcess(texts).finally(() => {
        stop = true;
      });
      processingSeconds += (performance.now() - started) / 1000;
      during.push(...(await probing));
    }

    const atRest = summary(rest);
    const whileProcessing = summary(during);
    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          settings: {
            rounds,
            restSecondsPerRound: restSeconds,
            messagesPerRound: texts.length,
            textLength: 65_536,
            kinds: Object.keys(adversarialTexts(16)),
          },
          healthAtRest: atRest,
          healthWhileProcessing: whileProcessing,
          messages: { processed: rounds * texts.length, seconds: Math.round(processingSeconds * 100) / 100 },
          ratios: {
            p50: Math.round((whileProcessing.p50Ms / atRest.p50Ms) * 100) / 100,
            p99: Math.round((whileProcessing.p99Ms / atRest.p99Ms) * 100) / 100,
          },
          target: { 'p99 while processing (ms)': '< 50', met: whileProcessing.p99Ms < 50 },
        },
        null,
        2,
      ) + '\n',
    );
  } finally {
    await db.end().catch(() => undefined);
    await gateway?.stop();
    await sendApi.close();
    await postgres.stop();
  }
}

await main();
