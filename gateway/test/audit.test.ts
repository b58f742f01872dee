/** The audit writer and the audit_log table (migration core/0001). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';

let db: TestDatabase;
let gateway: TestGateway;
beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('audit_log', () => {
  it('records kind, request id, ip and payload, with secret-looking keys scrubbed', async () => {
    const res = await fetch(`${gateway.url}/fixture/audit`, {
      method: 'POST',
      headers: { 'x-request-id': 'audit-1' },
    });
    expect(res.status).toBe(204);
    const { rows } = await db.pool.query(
      "SELECT kind, request_id, host(ip) AS ip, payload FROM audit_log WHERE request_id = 'audit-1'",
    );
    expect(rows).toEqual([
      {
        kind: 'fixture.audited',
        request_id: 'audit-1',
        ip: '127.0.0.1',
        payload: { note: 'hello', password: '[redacted]', nested: { apiKey: '[redacted]' } },
      },
    ]);
  });

  it('is append-only: UPDATE, DELETE and TRUNCATE are refused', async () => {
    await db.pool.query("INSERT INTO audit_log (kind) VALUES ('test.row')");
    await expect(db.pool.query("UPDATE audit_log SET actor = 'x'")).rejects.toThrow(
      /append-only \(UPDATE refused\)/,
    );
    await expect(db.pool.query('DELETE FROM audit_log')).rejects.toThrow(/append-only \(DELETE refused\)/);
    await expect(db.pool.query('TRUNCATE audit_log')).rejects.toThrow(/append-only \(TRUNCATE refused\)/);
  });

  it('refuses a kind that is not dotted lower case', async () => {
    await expect(db.pool.query("INSERT INTO audit_log (kind) VALUES ('Not A Kind')")).rejects.toThrow(
      /audit_log_kind_check/,
    );
  });
});

describe('fire-and-forget audit rows', () => {
  it('a burst is group-committed: every row stored, in fewer statements than rows', async () => {
    for (let i = 0; i < 200; i++) {
      gateway.audit.writeLater({ kind: 'test.burst', requestId: `burst-${i}`, payload: { i } });
    }
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ n: number; stamps: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT xmin::text)::int AS stamps FROM audit_log WHERE kind = 'test.burst'",
    );
    // Each transaction stamps its rows with one xmin: 200 rows written by far fewer statements.
    expect(rows[0]?.n).toBe(200);
    expect(rows[0]?.stamps).toBeLessThan(20);
  });

  it('a row the table refuses is logged alone; the rows batched with it are stored', async () => {
    gateway.audit.writeLater({ kind: 'test.batch', requestId: 'batch-before' });
    for (let i = 0; i < 5; i++) gateway.audit.writeLater({ kind: 'test.batch', requestId: `batch-${i}` });
    gateway.audit.writeLater({ kind: 'Not A Kind', requestId: 'batch-bad' });
    for (let i = 5; i < 10; i++) gateway.audit.writeLater({ kind: 'test.batch', requestId: `batch-${i}` });
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM audit_log WHERE kind = 'test.batch'",
    );
    expect(rows[0]?.n).toBe(11);
    const failures = gateway.logs().filter((line) => line.msg === 'audit write failed');
    expect(failures.map((line) => line.requestId)).toEqual(['batch-bad']);
  });
});
