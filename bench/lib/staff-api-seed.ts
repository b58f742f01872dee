import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { copyRows } from './copy-rows.ts';
import { drawLeadPlan, LEAD_COLUMNS, leadLines } from './staff-api-seed-leads.ts';
import { drawPlan, type SeedPlan, type SeedSettings } from './staff-api-seed-plan.ts';
import {
  agentOf,
  clusterId,
  clusterLines,
  CONVERSATION_COLUMNS,
  conversationId,
  conversationLines,
  drawContacts,
  memberLines,
  MESSAGE_COLUMNS,
  messageLines,
} from './staff-api-seed-rows.ts';

/** Bump when the rows the seeder writes change: a kept database with another version is seeded again. */
const SEED_VERSION = 1;

/**
 * The history the lead triggers write: the computed status when the lead was captured or entered, and for
 * a lead with a status set by hand, that change by an agent of its cluster when it was last updated.
 */
const STATUS_HISTORY = `
  INSERT INTO messaging_lead_status_history (lead_id, status, computed_status, status_override, changed_by, changed_at)
  SELECT id, status, status, NULL, NULL, created_at FROM messaging_leads
  UNION ALL
  SELECT id, status_override, status, status_override, 'agent-01-1', updated_at
    FROM messaging_leads WHERE status_override IS NOT NULL
  ORDER BY 6`;

/** The leads summary's daily counts the lead triggers keep, in the zone the counts are kept in. */
const LEAD_COUNTS = `
  INSERT INTO messaging_lead_counts (day, cluster_id, effective_status, n)
  SELECT (created_at AT TIME ZONE (SELECT time_zone FROM messaging_lead_summary_zone))::date, cluster_id,
         effective_status, count(*)
    FROM messaging_leads GROUP BY 1, 2, 3`;

/** The coarse counts the fine counts' triggers keep: their sums per (day, status) and per (day, cluster). */
const COARSE_LEAD_COUNTS = [
  `INSERT INTO messaging_lead_counts_by_status (day, effective_status, n)
   SELECT day, effective_status, sum(n) FROM messaging_lead_counts GROUP BY 1, 2`,
  `INSERT INTO messaging_lead_counts_by_cluster (day, cluster_id, n)
   SELECT day, cluster_id, sum(n) FROM messaging_lead_counts GROUP BY 1, 2`,
];

/** What the benchmark needs to know about the seeded data to build its requests. */
export interface SeedFacts {
  endsAt: string;
  clusterIds: string[];
  /** An agent of the biggest cluster only. */
  agent: string;
  agentCluster: string;
  /** The conversation of the biggest cluster with the most messages, and how many it has. */
  conversation: { id: string; messages: number };
}

export interface SeedReport {
  reused: boolean;
  seconds: Record<string, number>;
  rows: Record<string, number>;
  databaseMb: number;
  facts: SeedFacts;
}

/**
 * What the seeded database depends on: the seeder's version and settings, and the migrations of the
 * plugins the benchmark runs (a kept database older than a migration is seeded again).
 */
export function seedFingerprint(root: string, settings: SeedSettings): string {
  const digest = createHash('sha256').update(JSON.stringify({ SEED_VERSION, settings }));
  for (const folder of ['core', 'auth', 'messaging']) {
    const dir = path.join(root, 'migrations', folder);
    for (const file of readdirSync(dir).sort())
      digest.update(file).update(readFileSync(path.join(dir, file)));
  }
  return digest.digest('hex');
}

const TABLES = [
  'messaging_clusters',
  'messaging_cluster_members',
  'messaging_conversations',
  'messaging_messages',
  'messaging_leads',
  'messaging_lead_status_history',
  'messaging_lead_counts',
  'messaging_lead_counts_by_status',
  'messaging_lead_counts_by_cluster',
];

/** What the lead triggers keep for the summary (emptied with the leads, since the triggers do not run). */
const LEAD_COUNT_TABLES = [
  'messaging_lead_counts',
  'messaging_lead_counts_by_status',
  'messaging_lead_counts_by_cluster',
  'messaging_lead_count_deltas',
];

const SEED_TABLE =
  'CREATE TABLE IF NOT EXISTS bench_staff_api_seed (fingerprint text PRIMARY KEY, report jsonb NOT NULL)';

/** The seed recorded in the database, when it is the one `fingerprint` names. */
export async function existingSeed(db: pg.ClientBase, fingerprint: string): Promise<SeedReport | null> {
  await db.query(SEED_TABLE);
  const { rows } = await db.query<{ report: SeedReport }>(
    'SELECT report FROM bench_staff_api_seed WHERE fingerprint = $1',
    [fingerprint],
  );
  return rows[0] ? { ...rows[0].report, reused: true } : null;
}

function facts(plan: SeedPlan): SeedFacts {
  let busiest = -1;
  let most = 0;
  for (let c = 0; c < plan.settings.conversations; c++) {
    const count = (plan.messageStart[c + 1] as number) - (plan.messageStart[c] as number);
    if (plan.conversationCluster[c] === 0 && count > most) [busiest, most] = [c, count];
  }
  return {
    endsAt: plan.settings.endsAt,
    clusterIds: Array.from({ length: plan.settings.clusters }, (_, k) => clusterId(plan, k)),
    agent: agentOf(0, 2),
    agentCluster: clusterId(plan, 0),
    conversation: { id: conversationId(plan, busiest), messages: most },
  };
}

async function timed<T>(seconds: Record<string, number>, step: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stderr.write(`seed: ${step}...\n`);
  const result = await work();
  seconds[step] = Math.round((performance.now() - started) / 100) / 10;
  process.stderr.write(`seed: ${step} done in ${seconds[step]} s\n`);
  return result;
}

/**
 * One transaction on its own connection that empties `tables` first, so COPY may write their rows frozen
 * and all-visible (COPY FREEZE: no hint-bit writes or vacuum debt afterwards). No triggers (nor the
 * foreign-key checks, which are triggers too) run meanwhile: the rows are consistent by construction and name
 * their cluster themselves; the status history the lead trigger would write is written in one statement.
 */
async function refill(url: string, tables: readonly string[], work: (db: pg.Client) => Promise<void>) {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('BEGIN');
    await db.query('SET LOCAL session_replication_role = replica');
    await db.query(`TRUNCATE ${tables.join(', ')} CASCADE`);
    await work(db);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await db.end();
  }
}

/**
 * Seeds the staff API tables with COPY: clusters and conversations first, then messages and leads at the
 * same time on two connections (PostgreSQL's side of COPY is the slow one: two backends use both cores),
 * then VACUUM ANALYZE for the planner's statistics and the visibility map. Records the report under
 * `fingerprint`.
 */
export async function seedStaffApi(
  url: string,
  settings: SeedSettings,
  fingerprint: string,
): Promise<SeedReport> {
  const seconds: Record<string, number> = {};
  const rows: Record<string, number> = {};
  const plan = await timed(seconds, 'plan', () => Promise.resolve(drawPlan(settings)));
  const contacts = drawContacts(plan);
  const leads = drawLeadPlan(plan);
  const copy = (db: pg.Client, table: string, columns: readonly string[], lines: Iterable<string>) =>
    timed(seconds, table, async () => {
      rows[table] = await copyRows(db, table, columns, lines, { freeze: true });
    });
  await refill(url, TABLES, async (db) => {
    await copy(db, 'messaging_clusters', ['id', 'name', 'phone_number_id', 'created_at'], clusterLines(plan));
    await copy(db, 'messaging_cluster_members', ['cluster_id', 'user_id'], memberLines(plan));
    await copy(db, 'messaging_conversations', CONVERSATION_COLUMNS, conversationLines(plan, contacts));
  });
  await timed(seconds, 'messages and leads, in parallel', () =>
    Promise.all([
      refill(url, ['messaging_messages'], (db) =>
        copy(db, 'messaging_messages', MESSAGE_COLUMNS, messageLines(plan, contacts)),
      ),
      refill(url, ['messaging_leads', ...LEAD_COUNT_TABLES], async (db) => {
        await copy(db, 'messaging_leads', LEAD_COLUMNS, leadLines(plan, leads, contacts));
        await timed(seconds, 'messaging_lead_status_history', async () => {
          rows.messaging_lead_status_history = (await db.query(STATUS_HISTORY)).rowCount ?? 0;
        });
        await timed(seconds, 'messaging_lead_counts', async () => {
          rows.messaging_lead_counts = (await db.query(LEAD_COUNTS)).rowCount ?? 0;
          for (const statement of COARSE_LEAD_COUNTS) await db.query(statement);
        });
      }),
    ]),
  );
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await timed(seconds, 'vacuum analyze', () => db.query(`VACUUM (ANALYZE) ${TABLES.join(', ')}`));
    // Written out now, not by a checkpoint in the middle of a measured window.
    await timed(seconds, 'checkpoint', () => db.query('CHECKPOINT'));
    const { rows: size } = await db.query<{ mb: string }>(
      'SELECT round(pg_database_size(current_database()) / 1048576.0) AS mb',
    );
    const report: SeedReport = {
      reused: false,
      seconds,
      rows,
      databaseMb: Number(size[0]?.mb),
      facts: facts(plan),
    };
    await db.query(SEED_TABLE);
    await db.query('DELETE FROM bench_staff_api_seed');
    await db.query('INSERT INTO bench_staff_api_seed (fingerprint, report) VALUES ($1, $2)', [
      fingerprint,
      report,
    ]);
    return report;
  } finally {
    await db.end();
  }
}
