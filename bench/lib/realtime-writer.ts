import pg from 'pg';
import { messageText, nowMs } from './realtime-bench-wire.ts';

/** The staff routing the bench seeds: clusters, their agents, and conversations routed to them. */
export interface Routing {
  clusterIds: string[];
  /** `agents[c]`: the user ids of cluster c's members. */
  agents: string[][];
  /** Conversation j belongs to cluster `j % clusterIds.length`. */
  conversationIds: string[];
}

/**
 * Seeds `clusters` clusters of `agentsPerCluster` members each, and `conversationsPerCluster` conversations
 * routed to each, straight into the messaging tables (as plugins/realtime/test does). Three statements.
 */
export async function seedRouting(
  db: pg.Client,
  plan: { clusters: number; agentsPerCluster: number; conversationsPerCluster: number },
): Promise<Routing> {
  const names = Array.from({ length: plan.clusters }, (_, c) => `bench-cluster-${c}`);
  const { rows: clusters } = await db.query<{ id: string; name: string }>(
    `INSERT INTO messaging_clusters (name, created_at) SELECT name, now() FROM unnest($1::text[]) AS name
     RETURNING id, name`,
    [names],
  );
  const byName = new Map(clusters.map((row) => [row.name, row.id]));
  const clusterIds = names.map((name) => byName.get(name) as string);
  const agents = clusterIds.map((_, c) =>
    Array.from({ length: plan.agentsPerCluster }, (_, k) => `bench-agent-${c}-${k}`),
  );
  await db.query(
    `INSERT INTO messaging_cluster_members (cluster_id, user_id)
     SELECT * FROM unnest($1::uuid[], $2::text[])`,
    [agents.flatMap((members, c) => members.map(() => clusterIds[c])), agents.flat()],
  );
  const count = plan.clusters * plan.conversationsPerCluster;
  const phones = Array.from({ length: count }, (_, j) => String(6281300000000 + j));
  const { rows: conversations } = await db.query<{ id: string; contact_phone: string }>(
    `INSERT INTO messaging_conversations (phone_number_id, contact_key, contact_phone, cluster_id, capture,
       created_at, updated_at)
     SELECT '106540352242922', 'wa:' || phone, phone, cluster, '{"state":"idle"}', now(), now()
       FROM unnest($1::text[], $2::uuid[]) AS u(phone, cluster)
     RETURNING id, contact_phone`,
    [phones, phones.map((_, j) => clusterIds[j % plan.clusters])],
  );
  const byPhone = new Map(conversations.map((row) => [row.contact_phone, row.id]));
  return { clusterIds, agents, conversationIds: phones.map((phone) => byPhone.get(phone) as string) };
}

export interface WriterPlan {
  ratePerSecond: number;
  rowsPerTransaction: number;
  connections: number;
  warmupMs: number;
  measureMs: number;
  /** Makes the provider message ids of this run unique in a database that earlier runs wrote to. */
  runTag: string;
  /** Called once, when the first transaction of the measured window is due. */
  onMeasureStart?(): void;
}

export interface WriterResult {
  /** Messages written: sequence numbers 0 to events − 1. */
  events: number;
  /** The measured window: sequence numbers from `measuredFrom` (the warm-up before it). */
  measuredFrom: number;
  /** When each message's COMMIT returned to the writer (nowMs()), by sequence number. */
  commitAt: Float64Array;
  /** The cluster (index into Routing.clusterIds) each message went to, by sequence number. */
  clusterOf: Int32Array;
  /** The measured window from the first transaction due to the last COMMIT returned. */
  measuredSeconds: number;
  /** How late transactions started against their schedule (ms): the writer or PostgreSQL falling behind. */
  startLagMs: number[];
}

/**
 * Commits `ratePerSecond` messages a second for warm-up + measure: one INSERT of `rowsPerTransaction` rows
 * (an autocommit transaction) every `rowsPerTransaction / ratePerSecond` s, on the first free of
 * `connections` connections, each row in the next conversation round-robin (so consecutive rows go to
 * different clusters). Each row's text carries its sequence number; the moment its COMMIT returns is
 * recorded for it.
 */
export async function writeMessages(url: string, routing: Routing, plan: WriterPlan): Promise<WriterResult> {
  const intervalMs = (1000 * plan.rowsPerTransaction) / plan.ratePerSecond;
  const warmupTicks = Math.round(plan.warmupMs / intervalMs);
  const ticks = warmupTicks + Math.round(plan.measureMs / intervalMs);
  const events = ticks * plan.rowsPerTransaction;
  const result: WriterResult = {
    events,
    measuredFrom: warmupTicks * plan.rowsPerTransaction,
    commitAt: new Float64Array(events),
    clusterOf: new Int32Array(events).map((_, seq) => seq % routing.clusterIds.length),
    measuredSeconds: 0,
    startLagMs: [],
  };
  const connections = await ConnectionPool.open(url, plan.connections);
  const failures: Error[] = [];
  const inFlight = new Set<Promise<void>>();
  const start = nowMs() + 100;
  try {
    for (let tick = 0; tick < ticks && failures.length === 0; tick++) {
      const due = start + tick * intervalMs;
      await sleepUntil(due);
      if (tick === warmupTicks) plan.onMeasureStart?.();
      const client = await connections.take();
      result.startLagMs.push(nowMs() - due);
      const first = tick * plan.rowsPerTransaction;
      const commit = insertBatch(client, routing, plan, first)
        .then((at) => result.commitAt.fill(at, first, first + plan.rowsPerTransaction))
        .then(
          () => undefined,
          (err: unknown) => void failures.push(err as Error),
        )
        .finally(() => {
          connections.give(client);
          inFlight.delete(commit);
        });
      inFlight.add(commit);
    }
    await Promise.all(inFlight);
  } finally {
    await connections.close();
  }
  const [failure] = failures;
  if (failure) throw failure;
  const measureStart = start + warmupTicks * intervalMs;
  const lastCommit = result.commitAt.subarray(result.measuredFrom).reduce((a, b) => Math.max(a, b), 0);
  result.measuredSeconds = (lastCommit - measureStart) / 1000;
  return result;
}

/** Timers fire on whole milliseconds of a clock read at the loop's start: wait until `due` has really passed. */
async function sleepUntil(due: number): Promise<void> {
  while (nowMs() < due) await new Promise((resolve) => setTimeout(resolve, Math.ceil(due - nowMs())));
}

/** One multi-row INSERT (one transaction): the statement trigger turns it into one event per row. */
async function insertBatch(
  client: pg.Client,
  routing: Routing,
  plan: WriterPlan,
  first: number,
): Promise<number> {
  const seqs = Array.from({ length: plan.rowsPerTransaction }, (_, i) => first + i);
  await client.query(
    `INSERT INTO messaging_messages (conversation_id, direction, provider_message_id, type, text, payload,
       provider_timestamp, created_at, processing_status)
     SELECT conversation, 'inbound', provider_id, 'text', text, '{}', now(), now(), 'processed'
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(conversation, provider_id, text)`,
    [
      seqs.map((seq) => routing.conversationIds[seq % routing.conversationIds.length]),
      seqs.map((seq) => `wamid.bench.${plan.runTag}.${seq}`),
      seqs.map(messageText),
    ],
  );
  return nowMs();
}

/** A handful of connections handed out one transaction at a time. */
class ConnectionPool {
  private readonly all: pg.Client[];
  private readonly idle: pg.Client[];
  private readonly waiting: Array<(client: pg.Client) => void> = [];

  private constructor(clients: pg.Client[]) {
    this.all = clients;
    this.idle = [...clients];
  }

  static async open(url: string, size: number): Promise<ConnectionPool> {
    const clients = Array.from({ length: size }, () => new pg.Client({ connectionString: url }));
    // A connection lost during a query fails that query; one lost between queries (PostgreSQL stopped by a
    // Ctrl-C's teardown) must not end the process before the teardown has stopped everything else.
    for (const client of clients) client.on('error', () => undefined);
    await Promise.all(clients.map((client) => client.connect()));
    return new ConnectionPool(clients);
  }

  take(): Promise<pg.Client> {
    const client = this.idle.pop();
    if (client) return Promise.resolve(client);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(client: pg.Client): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(client);
    else this.idle.push(client);
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((client) => client.end()));
  }
}
