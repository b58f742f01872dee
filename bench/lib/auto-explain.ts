import pg from 'pg';

/**
 * The plans of the statements a server ran, as PostgreSQL's auto_explain logged them: the SQL and the
 * parameters the application really sent, with `EXPLAIN (ANALYZE, BUFFERS)`'s output. Needs a server that
 * preloads auto_explain and whose log the caller reads (bench/lib/staff-api-postgres.ts).
 */
export interface LoggedPlan {
  pid: number;
  durationMs: number;
  query: string;
  parameters: string | null;
  /** The plan with actual times, rows and buffers. */
  plan: string;
}

const SETTINGS = {
  'auto_explain.log_min_duration': '0',
  'auto_explain.log_analyze': 'on',
  'auto_explain.log_buffers': 'on',
  'auto_explain.log_timing': 'on',
  'auto_explain.log_triggers': 'on',
  'auto_explain.log_nested_statements': 'on',
};

async function apply(url: string, on: boolean): Promise<void> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    for (const [name, value] of Object.entries(SETTINGS)) {
      await db.query(on ? `ALTER SYSTEM SET ${name} = '${value}'` : `ALTER SYSTEM RESET ${name}`);
    }
    await db.query('SELECT pg_reload_conf()');
    // Every backend reads the reloaded file before its next statement; this one shows when that happened.
    const wanted = on ? '0' : '-1';
    const deadline = Date.now() + 10_000;
    const current = async () =>
      (await db.query<{ value: string }>("SELECT current_setting('auto_explain.log_min_duration') AS value"))
        .rows[0]?.value;
    while ((await current()) !== wanted) {
      if (Date.now() > deadline) throw new Error('auto_explain settings were not reloaded');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await db.end();
  }
}

/** Turns plan logging off (also after a run that stopped while it was on: ALTER SYSTEM persists). */
export function autoExplainOff(url: string): Promise<void> {
  return apply(url, false);
}

const ENTRY_START = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \S+ \[(\d+)\] /;

/** The auto_explain entries of a log excerpt (log_line_prefix '%m [%p] ', text format). */
export function parsePlans(log: string): LoggedPlan[] {
  const entries: string[][] = [];
  for (const line of log.split('\n')) {
    if (ENTRY_START.test(line)) entries.push([line]);
    else if (entries.length > 0 && line !== '') entries.at(-1)?.push(line);
  }
  return entries.flatMap((lines) => {
    const head = /^\S+ \S+ \S+ \[(\d+)\] LOG:\s+duration: ([\d.]+) ms\s+plan:/.exec(lines[0] ?? '');
    if (!head) return [];
    const body = lines.slice(1).map((line) => line.replace(/^\t/, ''));
    // The plan starts at its first node (`Limit  (cost=...`); the query text and parameters come before.
    const found = body.findIndex((line) => /^\S.* {2}\(cost=\d+\.\d+\.\.\d+\.\d+ rows=/.test(line));
    const planStart = found < 0 ? body.length : found;
    const text = body.slice(0, planStart);
    const parameters = text.find((line) => line.startsWith('Query Parameters: '));
    return [
      {
        pid: Number(head[1]),
        durationMs: Number(head[2]),
        query: text
          .filter((line) => line !== parameters)
          .join('\n')
          .replace(/^Query Text: /, ''),
        parameters: parameters?.replace('Query Parameters: ', '') ?? null,
        plan: body.slice(planStart).join('\n'),
      },
    ];
  });
}

/**
 * Runs `work` with every statement's plan logged (auto_explain with ANALYZE and BUFFERS), and returns the
 * plans logged meanwhile. `tapLog` starts collecting the server's log; `take` returns what came.
 */
export async function capturePlans(
  url: string,
  tapLog: () => { take(): string },
  work: () => Promise<void>,
): Promise<LoggedPlan[]> {
  await apply(url, true);
  const tap = tapLog();
  try {
    await work();
    // The server writes an entry before the statement's answer leaves; its pipe to this process may lag.
    await new Promise((resolve) => setTimeout(resolve, 300));
  } finally {
    await apply(url, false);
  }
  // Without this module's own statements (the settings and the check that they were reloaded).
  return parsePlans(tap.take()).filter(
    (entry) =>
      !/^(ALTER SYSTEM|SELECT pg_reload_conf|SELECT current_setting\('auto_explain)/.test(entry.query),
  );
}
