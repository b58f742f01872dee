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

export function createAuditWriter(deps: { db: Database; clock: Clock; logger: Logger }): AuditWriter {
  const pending = new Set<Promise<void>>();

  const write = async (record: AuditRecord): Promise<void> => {
    await deps.db.query(
      'INSERT INTO audit_log (at, kind, actor, request_id, ip, payload) VALUES ($1, $2, $3, $4, $5, $6)',
      [
        deps.clock.now(),
        record.kind,
        record.actor == null ? null : storableText(record.actor),
        record.requestId ?? null,
        record.ip ?? null,
        JSON.stringify(scrubPayload(record.payload ?? {})),
      ],
    );
  };

  return {
    write,
    writeLater(record) {
      const job = write(record).catch((err: unknown) => {
        deps.logger.error({ err, kind: record.kind, requestId: record.requestId }, 'audit write failed');
      });
      pending.add(job);
      void job.finally(() => pending.delete(job));
    },
    async flush() {
      await Promise.all([...pending]);
    },
  };
}
