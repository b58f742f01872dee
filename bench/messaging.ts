/**
 * `npm run bench:messaging` (targets: bench/README.md, "Targets"), against the real gateway (production
 * settings, auth + messaging, the bench's embedded PostgreSQL, logs to a file) and a stand-in send API on
 * loopback:
 *  - webhook acknowledgement latency at a fixed 500 messages/s (target p50 ≤ 10 ms, p99 ≤ 50 ms);
 *  - end-to-end pipeline throughput: a burst of messages persisted, classified, lead-upserted, notified and
 *    answered, from the first POST to the last message processed; compared with the raw single-row INSERT
 *    rate of the same PostgreSQL measured in the same run (target ≥ 50 %).
 * Output: JSON on stdout. Options (env): BENCH_SECONDS (ack phase, default 10), BENCH_BURST_SECONDS (default 10),
 * BENCH_BURST_CONNECTIONS (default 16), BENCH_PGSS=1 (load pg_stat_statements and print the costliest statements
 * of the run on stderr: where PostgreSQL's time goes).
 */
import { execFile } from 'node:child_process';
import { cpus } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { cpuByCommand, cpuSpent } from './lib/cpu.ts';
import { PHONE_NUMBER_ID, textMessage } from '../test/support/whatsapp.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { startMessagingProcess, startSendApi } from './lib/messaging-gateway.ts';
import { freePort, type BenchProcess } from './lib/processes.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const burstSeconds = Number(process.env.BENCH_BURST_SECONDS ?? 10);
const burstConnections = Number(process.env.BENCH_BURST_CONNECTIONS ?? 16);
const run = promisify(execFile);

let sequence = 0;
/** A notification with one text message from one of `senders` contacts; every message id unique. */
function notification(senders: number, text: string): string {
  sequence++;
  return JSON.stringify(
    textMessage({ from: String(6281200000000 + (sequence % senders)), text, name: 'Bench' }),
  );
}

/** Single-row INSERTs, one statement (and transaction) at a time per connection, for `ms`. */
async function insertRate(url: string, connections: number, ms: number): Promise<number> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(
    'CREATE TABLE IF NOT EXISTS bench_inserts (id bigserial PRIMARY KEY, body text, at timestamptz)',
  );
  await setup.end();
  let rows = 0;
  const deadline = Date.now() + ms;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      while (Date.now() < deadline) {
        await client.query('INSERT INTO bench_inserts (body, at) VALUES ($1, now())', [
          'halo, saya mau daftar',
        ]);
        rows++;
      }
      await client.end();
    }),
  );
  return rows / (ms / 1000);
}

/**
 * A burst of `seconds` at full speed from wrk (a C load generator: it leaves the two cores to the
 * gateway and PostgreSQL), every request a notification with a new message id. Returns the messages sent.
 */
async function wrkBurst(url: string, seconds: number, senders: number, text: string): Promise<number> {
  const { writeFile } = await import('node:fs/promises');
  const script = `/tmp/gatehouse-bench-messaging-${process.pid}.lua`;
  await writeFile(
    script,
    `
local counter = 0
local thread_id = tostring(math.random(1, 1e9))
request = function()
  counter = counter + 1
  local from = tostring(6281200000000 + (counter % ${senders}))
  local body = '{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"${PHONE_NUMBER_ID}"},"contacts":[{"profile":{"name":"Bench"},"wa_id":"' .. from .. '"}],"messages":[{"from":"' .. from .. '","id":"wamid.wrk.' .. thread_id .. '.' .. counter .. '","timestamp":"' .. os.time() .. '","type":"text","text":{"body":"${text}"}}]}}]}]}'
  return wrk.format("POST", nil, {["Content-Type"] = "application/json"}, body)
end
`,
  );
  const { stdout } = await run(
    'wrk',
    ['-t', '1', '-c', String(burstConnections), '-d', `${seconds}s`, '-s', script, url],
    {
      maxBuffer: 1 << 20,
    },
  );
  const requests = Number(/\s(\d+) requests in/.exec(stdout)?.[1]);
  if (/Non-2xx/.test(stdout)) throw new Error(`the webhook refused requests:\n${stdout}`);
  return requests;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the queue');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function main(): Promise<void> {
  const postgres = await startBenchPostgres();
  const sendApi = await startSendApi();
  let gateway: BenchProcess | undefined;
  const db = new pg.Client({ connectionString: postgres.url });
  try {
    const port = await freePort();
    gateway = await startMessagingProcess({
      name: 'gateway-messaging',
      databaseUrl: postgres.url,
      sendApi,
      port,
    });
    await db.connect();
    if (process.env.BENCH_PGSS) await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    // Staff routing: a cluster for the bench number with two members, so captured leads notify someone.
    const cli = (args: string[]) =>
      run(process.execPath, [path.join(root, 'app/cli.ts'), 'messaging', ...args], {
        env: {
          ...process.env,
          APP_ENV: 'production',
          API_AUTH_MODE: 'disabled',
          AUTH_MODE: 'local',
          AUTH_SECRET: 'x',
          DATABASE_URL: postgres.url,
          GATEWAY_PLUGINS: 'auth,messaging',
          LOG_LEVEL: 'warn',
        },
      });
    const cluster = JSON.parse(
      (await cli(['cluster', 'create', '--name', 'Bench', '--phone-number-id', PHONE_NUMBER_ID])).stdout,
    ) as { id: string };
    await cli(['cluster', 'add-member', '--cluster', cluster.id, '--user', 'agent-1']);
    await cli(['cluster', 'add-member', '--cluster', cluster.id, '--user', 'agent-2']);

    const processedCount = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM messaging_messages WHERE processing_status = 'processed'",
          )
        ).rows[0]?.n,
      );
    const drained = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            "SELECT count(*) AS n FROM messaging_messages WHERE processing_status = 'queued'",
          )
        ).rows[0]?.n,
      ) === 0;

    const post = (
      connections: number,
      amount: number | undefined,
      rate: number | undefined,
      duration: number | undefined,
      senders: number,
      text: string,
    ) =>
      autocannon({
        url: `${gateway?.url}/webhook/chat`,
        connections,
        ...(amount ? { amount } : {}),
        ...(duration ? { duration } : {}),
        ...(rate ? { overallRate: rate } : {}),
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            setupRequest: (req) => ({ ...req, body: notification(senders, text) }),
          },
        ],
      });

    // Warm-up: JIT, pools, conversations.
    await post(8, 500, undefined, undefined, 500, 'halo');
    await waitUntil(drained, 120_000);

    // 1. Acknowledgement latency at a fixed 500 messages/s.
    const ack = await post(16, undefined, 500, seconds, 2000, 'berapa biaya kuliah?');
    await waitUntil(drained, 300_000);

    // 2. Baseline: raw single-row INSERTs on the same PostgreSQL, one connection and four.
    const insertOne = await insertRate(postgres.url, 1, 5_000);
    const insertFour = await insertRate(postgres.url, 4, 5_000);

    // 3. End-to-end: a burst, from the first POST to the last message processed.
    const before = await processedCount();
    const cpuBefore = cpuByCommand();
    const started = Date.now();
    const sent = await wrkBurst(`${gateway.url}/webhook/chat`, burstSeconds, 500, 'saya mau daftar');
    const acked = (Date.now() - started) / 1000;
    await waitUntil(async () => (await processedCount()) - before >= sent, 600_000);
    const elapsed = (Date.now() - started) / 1000;
    const cpu = cpuSpent(cpuBefore, cpuByCommand());
    const pipeline = sent / elapsed;
    if (process.env.BENCH_PGSS) {
      const { rows } = await db.query(
        `SELECT calls, round(total_exec_time)::int AS ms, round(mean_exec_time::numeric, 3) AS mean, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q
           FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 14`,
      );
      console.error(JSON.stringify(rows, null, 1));
    }

    process.stdout.write(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
          ackAt500PerSecond: {
            requests: ack.requests.total,
            rps: ack.requests.average,
            non2xx: ack.non2xx,
            p50Ms: ack.latency.p50,
            p99Ms: ack.latency.p99,
            target: 'p50 <= 10 ms, p99 <= 50 ms',
          },
          rawInsertRate: { oneConnection: Math.round(insertOne), fourConnections: Math.round(insertFour) },
          pipeline: {
            messages: sent,
            seconds: elapsed,
            messagesPerSecond: Math.round(pipeline),
            allAcknowledgedAfterSeconds: acked,
            repliesSent: sendApi.count(),
            ratioToOneConnectionInserts: Math.round((pipeline / insertOne) * 1000) / 1000,
            ratioToFourConnectionInserts: Math.round((pipeline / insertFour) * 1000) / 1000,
            cpuSecondsByProcess: cpu,
            target: '>= 0.5',
          },
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
