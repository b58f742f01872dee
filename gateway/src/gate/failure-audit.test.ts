import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../audit/audit-writer.ts';
import { createManualClock } from '../clock.ts';
import { createFailureAudit, type GateFailure, startFailureAudit } from './failure-audit.ts';

const failure = (overrides: Partial<GateFailure> = {}): GateFailure => ({
  kind: 'api.auth.hmac_failed',
  mode: 'warn',
  reason: 'missing',
  method: 'GET',
  route: '/api/v1/x',
  requestId: 'r',
  ip: '10.0.0.1',
  ...overrides,
});

function setup(maxKeys?: number) {
  const rows: AuditRecord[] = [];
  const clock = createManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const audit = createFailureAudit({ audit: { writeLater: (row) => void rows.push(row) }, clock, maxKeys });
  return { rows, clock, audit };
}

describe('collapsed failure audit', () => {
  it('writes the first failure at once and the rest of the minute as one summary', () => {
    const { rows, clock, audit } = setup();
    for (let i = 0; i < 500; i++) audit.record(failure({ requestId: `r${i}` }));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'api.auth.hmac_failed',
      requestId: 'r0',
      ip: '10.0.0.1',
      payload: { count: 1, reason: 'missing', mode: 'warn' },
    });
    audit.sweep();
    expect(rows).toHaveLength(1);
    clock.advance(60_000);
    audit.sweep();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({
      requestId: 'r499',
      payload: { count: 499, collapsed: true, windowStart: '2026-01-01T12:00:00.000Z' },
    });
  });

  it('keeps different reasons, routes and clients apart', () => {
    const { rows, audit } = setup();
    audit.record(failure());
    audit.record(failure({ reason: 'stale' }));
    audit.record(failure({ route: '/api/v1/y' }));
    audit.record(failure({ ip: '10.0.0.2' }));
    audit.record(failure({ kind: 'api.auth.session_failed' }));
    expect(rows).toHaveLength(5);
  });

  it('bounds the number of open windows: further clients share one overflow key', () => {
    const { rows, audit } = setup(2);
    audit.record(failure({ ip: '10.0.0.1' }));
    audit.record(failure({ ip: '10.0.0.2' }));
    for (let i = 3; i < 100; i++) audit.record(failure({ ip: `10.0.0.${i}` }));
    audit.flush();
    expect(rows.map((row) => [row.ip, (row.payload as { count: number }).count])).toEqual([
      ['10.0.0.1', 1],
      ['10.0.0.2', 1],
      [null, 1],
      [null, 96],
    ]);
  });
});

describe('a started failure audit', () => {
  it('writes its pending summaries when the gateway closes', () => {
    const rows: AuditRecord[] = [];
    const closers: Array<() => void> = [];
    const audit = startFailureAudit({
      audit: { writeLater: (row) => void rows.push(row) },
      clock: createManualClock(Date.UTC(2026, 0, 1, 12, 0, 0)),
      onClose: (fn) => closers.push(fn),
    });
    for (let i = 0; i < 3; i++) audit.record(failure({ requestId: `r${i}` }));
    expect(rows).toHaveLength(1);
    expect(closers).toHaveLength(1);
    for (const close of closers) close();
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatchObject({ requestId: 'r2', payload: { count: 2, collapsed: true } });
  });
});
