/**
 * The client address behind trusted proxies (TRUST_PROXY, docs/configuration.md): what a trusted hop
 * forwards becomes `req.ip` only when it is an IP address. Audit rows and sessions keep the address in an
 * `inet` column; before, `X-Forwarded-For: not-an-ip` failed those inserts (a 500, or a lost audit row).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import type { TestGateway } from '../../test/support/gateway.ts';
import { staffHeaders, startKycGateway } from '../../test/support/kyc.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url, env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function createTenant(name: string, forwardedFor: string) {
  return fetch(`${gateway.url}/api/v1/admin/kyc/tenants`, {
    method: 'POST',
    headers: { ...(await staffHeaders()), 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ name }),
  });
}

async function auditIpOf(tenantId: string): Promise<string | null> {
  const { rows } = await db.pool.query<{ ip: string | null }>(
    "SELECT host(ip) AS ip FROM audit_log WHERE kind = 'kyc.tenant.created' AND payload->>'tenantId' = $1",
    [tenantId],
  );
  expect(rows).toHaveLength(1);
  return rows[0]?.ip ?? null;
}

describe('X-Forwarded-For behind trusted proxies', () => {
  it('an address is the client address, as before', async () => {
    const res = await createTenant('Forwarded Co', '203.0.113.7, 10.0.0.2');
    expect(res.status).toBe(201);
    expect(await auditIpOf(((await res.json()) as { id: string }).id)).toBe('203.0.113.7');
  });

  it.each([
    ['a word', 'not-an-ip', '127.0.0.1'],
    ['a word before an address', 'not-an-ip, 198.51.100.4', '198.51.100.4'],
    ['a malformed IPv6 address', '::ffff:zz', '127.0.0.1'],
    ['an address with a port', '192.0.2.1:8080', '127.0.0.1'],
  ])('%s ends the chain at the last address: the write and its audit row succeed', async (_name, xff, ip) => {
    const tenants = async () =>
      Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM kyc_tenants')).rows[0]?.n);
    const before = await tenants();
    const res = await createTenant(`Spoof ${xff}`, xff);
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await auditIpOf(((await res.json()) as { id: string }).id)).toBe(ip);
    expect(await tenants()).toBe(before + 1);
    expect(gateway.logs().filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});
