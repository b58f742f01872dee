/**
 * Who may call the KYC API (README, "For tenants: the API" and "For staff"): wrong, revoked and expired
 * API keys → 401 before the body is looked at, revocation from the CLI reaching a running gateway, audit
 * rows without the key, keys never listed, and admin routes only for a verified staff session with
 * `kyc:admin`. The rate limits per key are rate-limits.security.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createManualClock } from '../../../test/support/core.ts';
import {
  createKey,
  createTenant,
  kycCli,
  staff,
  startKycGateway,
  tenantCall,
} from '../../../test/support/kyc.ts';

let db: TestDatabase;
let gateway: TestGateway;
// Starts at the real time: the staff session tokens are minted with real expiry times.
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url, clock });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const initiate = (key: string, ref = 'k-1') =>
  tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', {
    type: 'INDIVIDUAL_KTP',
    subjectExternalRef: ref,
  });

async function expectInvalidKey(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(await res.json()).toMatchObject({ code: 'kyc.api_key.invalid', status: 401 });
}

describe('API keys', () => {
  it('refuses a missing, malformed or unknown key with 401 kyc.api_key.invalid, before validating the body', async () => {
    await expectInvalidKey(await fetch(`${gateway.url}/api/v1/kyc/${crypto.randomUUID()}`));
    await expectInvalidKey(await tenantCall(gateway, 'not-a-key', 'GET', '/api/v1/kyc/usage'));
    await expectInvalidKey(await initiate(`kyc_live_${'A'.repeat(32)}`));
    // A bad body from an unauthenticated caller is still a 401: the shape is not disclosed.
    await expectInvalidKey(await tenantCall(gateway, 'wrong', 'POST', '/api/v1/kyc/initiate', { type: 1 }));
  });

  it('audits failures by reason without the key, collapsed per client', async () => {
    const wrong = `kyc_sandbox_${'B'.repeat(32)}`;
    for (let i = 0; i < 5; i++) await tenantCall(gateway, wrong, 'GET', '/api/v1/kyc/usage');
    const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM audit_log WHERE kind = 'api.auth.api_key_failed' AND payload->>'reason' = 'unknown'
        AND payload->>'route' = '/api/v1/kyc/usage'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows[0]?.payload).toMatchObject({ reason: 'unknown', method: 'GET', route: '/api/v1/kyc/usage' });
    const all = JSON.stringify((await db.pool.query('SELECT payload FROM audit_log')).rows);
    expect(all).not.toContain(wrong);
  });

  it('refuses a key revoked through the admin API at once, and audits creation and revocation', async () => {
    const tenant = await createTenant(gateway, { name: 'Revoke Co', sandbox: true });
    const created = await createKey(gateway, tenant.id, { label: 'ci' });
    expect((await initiate(created.key)).status).toBe(201);
    await staff(gateway, 'POST', `/api/v1/admin/kyc/keys/${created.id}/revoke`);
    await expectInvalidKey(await initiate(created.key));
    const { rows } = await db.pool.query<{ kind: string; actor: string; payload: Record<string, unknown> }>(
      "SELECT kind, actor, payload FROM audit_log WHERE payload->>'keyId' = $1 ORDER BY id",
      [created.id],
    );
    expect(rows.map((r) => [r.kind, r.actor])).toEqual([
      ['api.auth.api_key_created', 'reviewer-7'],
      ['api.auth.api_key_revoked', 'reviewer-7'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(created.key);
  });

  it('refuses a key the CLI revoked in another process (NOTIFY reaches the running gateway)', async () => {
    const tenant = await createTenant(gateway, { name: 'CLI Revoke Co', sandbox: true });
    const created = await createKey(gateway, tenant.id);
    // Used once, so the gateway has the key in its cache.
    expect((await initiate(created.key)).status).toBe(201);
    const out = await kycCli(db.url, ['key', 'revoke', '--id', created.id]);
    expect(out.code, out.stderr).toBe(0);
    await expect
      .poll(async () => (await tenantCall(gateway, created.key, 'GET', '/api/v1/kyc/usage')).status)
      .toBe(401);
  });

  it('refuses an expired key', async () => {
    const tenant = await createTenant(gateway, { name: 'Expiry Co', sandbox: true });
    const created = await createKey(gateway, tenant.id, {
      expiresAt: new Date(clock.nowMs() + 3_600_000).toISOString(),
    });
    expect((await initiate(created.key)).status).toBe(201);
    clock.advance(3_600_000);
    await expectInvalidKey(await initiate(created.key));
    clock.advance(-3_600_000);
  });

  it('lists keys without the key itself, and the CLI answers usage errors with exit code 64', async () => {
    const tenant = await createTenant(gateway, { name: 'List Co', sandbox: true });
    const created = await createKey(gateway, tenant.id);
    const listed = await staff<{ keys: Array<Record<string, unknown>> }>(
      gateway,
      'GET',
      `/api/v1/admin/kyc/tenants/${tenant.id}/keys`,
    );
    expect(listed.keys).toHaveLength(1);
    expect(listed.keys[0]).toMatchObject({ id: created.id, displayPrefix: created.key.slice(0, 16) });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const bad = await kycCli(db.url, ['key', 'create', '--tenant', 'nope']);
    expect(bad.code).toBe(64);
    const unknown = await kycCli(db.url, ['key', 'create', '--tenant', crypto.randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('kyc.tenant.not_found');
  });
});

describe('admin routes', () => {
  it('need a verified staff session with kyc:admin (401 without, 403 with another role)', async () => {
    const none = await fetch(`${gateway.url}/api/v1/admin/kyc/tenants`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ code: 'kyc.admin.unauthenticated' });
    const { staffHeaders } = await import('../../../test/support/kyc.ts');
    const agent = await fetch(`${gateway.url}/api/v1/admin/kyc/tenants`, {
      headers: await staffHeaders(['agent']),
    });
    expect(agent.status).toBe(403);
    expect(await agent.json()).toMatchObject({ code: 'kyc.forbidden' });
    const admin = await fetch(`${gateway.url}/api/v1/admin/kyc/tenants`, {
      headers: await staffHeaders(['*']),
    });
    expect(admin.status).toBe(200);
  });
});
