/**
 * Bad input on every KYC route (README, "Errors"): wrong types, missing fields, oversized strings,
 * unknown `type` → 400 problem+json listing the problems, and no row written anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  createKey,
  createTenant,
  staffHeaders,
  startKycGateway,
  tenantCall,
} from '../../../test/support/kyc.ts';

let db: TestDatabase;
let gateway: TestGateway;
let key: string;
let tenantId: string;

const TABLES = [
  'kyc_tenants',
  'kyc_api_keys',
  'kyc_verifications',
  'kyc_verification_events',
  'kyc_idempotency_keys',
  'kyc_quota_usage',
];

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    counts[table] = Number(
      (await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n,
    );
  }
  return counts;
}

async function expect400(res: Response, paths: string[]): Promise<void> {
  expect(res.status, await res.clone().text()).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = (await res.json()) as { code: string; errors: Array<{ path: string }> };
  expect(problem.code).toBe('validation.failed');
  expect(problem.errors.map((e) => e.path).sort()).toEqual([...paths].sort());
}

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url });
  const tenant = await createTenant(gateway, { name: 'Strict Co', quotaLimit: 10 });
  tenantId = tenant.id;
  key = (await createKey(gateway, tenant.id)).key;
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('tenant routes', () => {
  it.each([
    ['an unknown type', { type: 'PASSPORT_XX', subjectExternalRef: 'a' }, ['body.type']],
    ['a type of the wrong type', { type: 7, subjectExternalRef: 'a' }, ['body.type']],
    ['missing fields', {}, ['body.type', 'body.subjectExternalRef']],
    [
      'an oversized reference',
      { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'r'.repeat(201) },
      ['body.subjectExternalRef'],
    ],
    [
      'a reference with spaces',
      { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'a b' },
      ['body.subjectExternalRef'],
    ],
    ['an unknown field', { type: 'INDIVIDUAL_KTP', subjectExternalRef: 'a', admin: true }, ['body']],
    ['a JSON array', [1, 2], ['body']],
  ])('initiate with %s → 400, nothing written', async (_name, body, paths) => {
    const before = await rowCounts();
    await expect400(await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body), paths);
    expect(await rowCounts()).toEqual(before);
  });

  it('initiate with broken JSON or no body → 400, nothing written', async () => {
    const before = await rowCounts();
    const broken = await fetch(`${gateway.url}/api/v1/kyc/initiate`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{"type": "INDIVIDUAL_KTP",',
    });
    expect(broken.status).toBe(400);
    expect(broken.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const empty = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate');
    expect(empty.status).toBe(400);
    expect(await rowCounts()).toEqual(before);
  });

  it('status with an id that is not a verification id → 400', async () => {
    await expect400(await tenantCall(gateway, key, 'GET', '/api/v1/kyc/not-a-uuid'), ['params.id']);
  });
});

describe('admin routes', () => {
  const admin = async (method: string, path: string, body: unknown) =>
    fetch(gateway.url + path, { method, headers: await staffHeaders(), body: JSON.stringify(body) });

  it.each([
    ['tenant create without a name', 'POST', '/api/v1/admin/kyc/tenants', { sandbox: true }, ['body.name']],
    [
      'tenant create with a negative quota',
      'POST',
      '/api/v1/admin/kyc/tenants',
      { name: 'x', quotaLimit: -1 },
      ['body.quotaLimit'],
    ],
    [
      'tenant create with a string quota',
      'POST',
      '/api/v1/admin/kyc/tenants',
      { name: 'x', quotaLimit: '5' },
      ['body.quotaLimit'],
    ],
    [
      'tenant create with a bad webhook URL',
      'POST',
      '/api/v1/admin/kyc/tenants',
      { name: 'x', webhookUrl: 'ftp://x' },
      ['body.webhookUrl'],
    ],
    [
      'tenant create with an oversized name',
      'POST',
      '/api/v1/admin/kyc/tenants',
      { name: 'n'.repeat(201) },
      ['body.name'],
    ],
    [
      'a key with a bad expiry',
      'POST',
      '/api/v1/admin/kyc/tenants/{tenant}/keys',
      { expiresAt: 'tomorrow' },
      ['body.expiresAt'],
    ],
    ['a key for a malformed tenant id', 'POST', '/api/v1/admin/kyc/tenants/x/keys', {}, ['params.id']],
    [
      'a decision that is not one',
      'POST',
      '/api/v1/admin/kyc/verifications/{uuid}/decision',
      { decision: 'maybe', reason: 'r' },
      ['body.decision'],
    ],
    [
      'a decision without a reason',
      'POST',
      '/api/v1/admin/kyc/verifications/{uuid}/decision',
      { decision: 'approved' },
      ['body.reason'],
    ],
    ['an empty tenant update', 'PATCH', '/api/v1/admin/kyc/tenants/{tenant}', {}, ['body']],
    ['a revoke with a malformed id', 'POST', '/api/v1/admin/kyc/keys/123/revoke', {}, ['params.id']],
  ])('%s → 400, nothing written', async (_name, method, path, body, paths) => {
    const before = await rowCounts();
    const url = path.replace('{tenant}', tenantId).replace('{uuid}', crypto.randomUUID());
    await expect400(await admin(method, url, body), paths);
    expect(await rowCounts()).toEqual(before);
  });

  it('a well-formed request for an unknown tenant or key is 404, not 500', async () => {
    const tenant = await admin('POST', `/api/v1/admin/kyc/tenants/${crypto.randomUUID()}/keys`, {});
    expect(tenant.status).toBe(404);
    expect(await tenant.json()).toMatchObject({ code: 'kyc.tenant.not_found' });
    const keyRes = await admin('POST', `/api/v1/admin/kyc/keys/${crypto.randomUUID()}/revoke`, {});
    expect(keyRes.status).toBe(404);
    expect(await keyRes.json()).toMatchObject({ code: 'kyc.api_key.not_found' });
    const decision = await admin('POST', `/api/v1/admin/kyc/verifications/${crypto.randomUUID()}/decision`, {
      decision: 'approved',
      reason: 'ok',
    });
    expect(decision.status).toBe(404);
  });
});
