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
