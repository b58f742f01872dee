import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Clock } from '../clock.ts';

/**
 * One authentication failure, as the audit row describes it (docs/api-auth-gate.md, "Audit rows"):
 * the gate's two layers, and plugins' own credentials (the KYC API key) through the same collapsing.
 */
export interface GateFailure {
  kind: `api.auth.${string}`;
  /** The gate's API_AUTH_MODE; absent for credentials the gate does not own. */
  mode?: 'warn' | 'enforce';
  reason: string;
  method: string;
  route: string;
  requestId: string;
  ip: string | null;
}

export interface FailureAudit {
  record(failure: GateFailure): void;
  /** Writes the summaries of windows that have closed. */
  sweep(): void;
  /** Writes every pending summary (shutdown). */
  flush(): void;
}

interface Window {
  start: number;
  first: GateFailure;
  /** Failures after the first one in this window. */
  more: number;
  lastRequestId: string;
}

/**
 * Collapses identical failures (same kind, reason, method, route, client ip) so a flood cannot flood
 * audit_log (ADR 0004; docs/api-auth-gate.md, "Audit rows"). The first failure of a key in a one-minute
 * window is written at once, so a single failure is visible immediately; the rest of that window is counted
 * and written as one summary row (`count`, `collapsed: true`) when the window closes. At most two rows per
 * key per minute; the counts of a key's rows add up to its failures. Rows are appended, never updated:
 * audit_log is append-only.
 *
 * Many distinct client addresses (a distributed flood) are bounded too: past `maxKeys` open windows, new
 * keys share one overflow key (their rows carry `ip` null).
 */
export function createFailureAudit(options: {
  audit: Pick<AuditWriter, 'writeLater'>;
  clock: Clock;
  windowMs?: number;
  maxKeys?: number;
}): FailureAudit {
  const windowMs = options.windowMs ?? 60_000;
  const maxKeys = options.maxKeys ?? 10_000;
  const windows = new Map<string, Window>();

  const write = (failure: GateFailure, payload: Record<string, unknown>, requestId: string) =>
    options.audit.writeLater({
      kind: failure.kind,
      requestId,
      ip: failure.ip,
      payload: {
        ...(failure.mode ? { mode: failure.mode } : {}),
        reason: failure.reason,
        method: failure.method,
        route: failure.route,
        ...payload,
      },
    });

  const summarise = (window: Window) => {
    if (window.more === 0) return;
    write(
      window.first,
      { count: window.more, collapsed: true, windowStart: new Date(window.start).toISOString(), windowMs },
      window.lastRequestId,
    );
  };

  return {
    record(failure) {
      const now = options.clock.nowMs();
      const start = now - (now % windowMs);
      let key = `${failure.kind}|${failure.reason}|${failure.method}|${failure.route}|${failure.ip ?? ''}`;
      if (!windows.has(key) && windows.size >= maxKeys) {
        failure = { ...failure, ip: null };
        key = `${failure.kind}|${failure.reason}|${failure.method}|${failure.route}|*`;
      }
      const open = windows.get(key);
      if (open && open.start === start) {
        open.more++;
        open.lastRequestId = failure.requestId;
        return;
      }
      if (open) summarise(open);
      windows.set(key, { start, first: failure, more: 0, lastRequestId: failure.requestId });
      write(failure, { count: 1 }, failure.requestId);
    },
    sweep() {
      const now = options.clock.nowMs();
      const current = now - (now % windowMs);
      for (const [key, window] of windows) {
        if (window.start < current) {
          summarise(window);
          windows.delete(key);
        }
      }
    },
    flush() {
      for (const window of windows.values()) summarise(window);
      windows.clear();
    },
  };
}

/** How often the summaries of closed windows are written. */
const SWEEP_INTERVAL_MS = 5_000;

/**
 * A failure audit that runs for the life of the gateway: the summaries of closed windows are swept every
 * 5 s, and at shutdown (`onClose`) the sweep stops and every pending summary is written. The gate and a
 * plugin with credentials of its own (the KYC API key) each start one.
 */
export function startFailureAudit(options: {
  audit: Pick<AuditWriter, 'writeLater'>;
  clock: Clock;
  onClose(fn: () => void): void;
}): FailureAudit {
  const failures = createFailureAudit({ audit: options.audit, clock: options.clock });
  const sweep = setInterval(() => failures.sweep(), SWEEP_INTERVAL_MS);
  sweep.unref();
  options.onClose(() => {
    clearInterval(sweep);
    failures.flush();
  });
  return failures;
}
