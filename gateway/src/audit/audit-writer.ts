import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { storableText } from '../text/storable-text.ts';

/** One audit row (table `audit_log`, migration core/0001). */
export interface AuditRecord {
  /** Dotted kind with the owner's prefix, e.g. `api.auth.hmac_failed`, `auth.login.succeeded`. */
  kind: string;
  actor?: string | null;
  requestId?: string | null;
  ip?: string | null;
  payload?: Record<string, unknown>;
}

export interface AuditWriter {
  /** Writes the row and resolves when it is stored; for audits that must not be lost (sign-in events). */
  write(record: AuditRecord): Promise<void>;
  /**
   * Fire-and-forget: the request does not wait for its row, and a failure is logged, never thrown, so a
   * database problem loses rows without failing requests (docs/api-auth-gate.md, "What to watch"). Pending
   * writes are awaited by `flush()` at shutdown.
   */
  writeLater(record: AuditRecord): void;
  flush(): Promise<void>;
}

/**
 * Keys whose values must never reach the audit table, which many people read and which is kept for long: no
 * secret, password or token is ever audited, so the writer drops them even if a caller passes them by mistake.
 */
// Keys that end in a secret's name (password, newPassword, accessToken, apiKey, clientSecret, totpCode...),
// not keys that merely mention one (passwordMinLength is a setting, not a secret).
const FORBIDDEN_KEY =
  /(pass(word)?|passwd|secret|token|otp|(otp|totp)_?code|authorization|cookie|api_?key|signature)$/i;

/**
 * The payload as it is stored: secret-looking keys redacted, and every string and key made storable (an audit
 * row must not be lost because a value held U+0000 or an unpaired surrogate, which jsonb refuses). Nothing
 * deeper than 8 levels is kept: what is not walked is not checked.
 */
export function scrubPayload(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return storableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => scrubPayload(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[storableText(key)] = FORBIDDEN_KEY.test(key) ? '[redacted]' : scrubPayload(inner, depth + 1);
  }
  return out;
}

/** Rows one group-committed INSERT of `writeLater` takes at most. */
const LATER_BATCH_MAX = 500;

interface QueuedRow {
  row: AuditRow;
  record: AuditRecord;
}

/** A record as stored: its time taken when it was handed over, its text made storable. */
type AuditRow = [Date, string, string | null, string | null, string | null, string];

function toRow(at: Date, record: AuditRecord): AuditRow {
  return [
    at,
    record.kind,
    record.actor == null ? null : storableText(record.actor),
    record.requestId ?? null,
    record.ip ?? null,
    JSON.stringify(scrubPayload(record.payload ?? {})),
  ];
}

export function createAuditWriter(deps: { db: Database; clock: Clock; logger: Logger }): AuditWriter {
  const insert = async (rows: readonly AuditRow[]): Promise<void> => {
    await deps.db.query(
      `INSERT INTO audit_log (at, kind, actor, request_id, ip, payload)
       SELECT * FROM unnest($1::timestamptz[], $2::text[], $3::text[], $4::text[], $5::inet[], $6::jsonb[])`,
      [0, 1, 2, 3, 4, 5].map((column) => rows.map((row) => row[column])),
    );
  };
  const later = groupCommit(insert, deps.logger);

  return {
    write: (record) => insert([toRow(deps.clock.now(), record)]),
    writeLater: (record) => later.add(toRow(deps.clock.now(), record), record),
    flush: () => later.drained(),
  };
}

/**
 * Fire-and-forget rows, group-committed: while one INSERT is in flight, the rows handed over meanwhile wait
 * and go together in the next one. A busy gateway (a sensitive read audits every request) then spends one
 * statement per batch instead of one per request, and never more than one connection of the pool on audit
 * rows; an idle one still writes each row at once. When a batch fails, its rows are tried one by one, and a
 * row that still fails is logged with its kind and request id, never thrown.
 */
function groupCommit(insert: (rows: readonly AuditRow[]) => Promise<void>, logger: Logger) {
  let queued: QueuedRow[] = [];
  let inFlight: Promise<void> | null = null;

  const run = async (): Promise<void> => {
    while (queued.length > 0) {
      const batch = queued.slice(0, LATER_BATCH_MAX);
      queued = queued.slice(batch.length);
      try {
        await insert(batch.map((item) => item.row));
      } catch (err) {
        if (batch.length === 1) logFailure(batch[0] as QueuedRow, err);
        // One row the table refuses must not take the others with it: each is tried alone.
        else for (const item of batch) await insertAlone(item);
      }
    }
  };

  const logFailure = ({ record }: QueuedRow, err: unknown) =>
    logger.error({ err, kind: record.kind, requestId: record.requestId }, 'audit write failed');
  const insertAlone = (item: QueuedRow) => insert([item.row]).catch((err: unknown) => logFailure(item, err));

  return {
    add(row: AuditRow, record: AuditRecord): void {
      queued.push({ row, record });
      if (inFlight) return;
      inFlight = run().finally(() => {
        inFlight = null;
      });
    },
    /** Resolves once every row handed over so far is written (or its failure logged). */
    async drained(): Promise<void> {
      while (inFlight) await inFlight;
    },
  };
}
