/**
 * Billable quota (README, "Quota"), with truly parallel requests against the real gateway and Postgres: a
 * live tenant's initiations never pass its quota, however many arrive at once, because each takes its unit
 * in the transaction that creates the verification; sandbox tenants never consume any.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createKey, createTenant, startKycGateway, tenantCall } from '../../../test/support/kyc.ts';
import { metricSamples, samplesAdded } from '../../../test/support/metric-samples.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url, env: { DATABASE_POOL_MAX: '20' } });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const body = (ref: string) => ({ type: 'INDIVIDUAL_KTP', subjectExternalRef: ref });
const count = async (sql: string, values: unknown[]) =>
  Number((await db.pool.query<{ n: string }>(sql, values)).rows[0]?.n);

describe('billable quota', () => {
  it('lets exactly 20 of 50 parallel live initiations through a quota of 20; the other 30 get 402', async () => {
    const tenant = await createTenant(gateway, { name: 'Live Co', quotaLimit: 20 });
    const { key } = await createKey(gateway, tenant.id);
    const initiations = () => metricSamples(gateway.metricsUrl, 'gatehouse_kyc_initiations_total');
    const before = await initiations();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body(`s-${i}`)),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    const refused = responses.find((r) => r.status === 402) as Response;
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.json()).toMatchObject({ code: 'kyc.quota_exhausted', status: 402 });
    expect(await count('SELECT count(*) AS n FROM kyc_verifications WHERE tenant_id = $1', [tenant.id])).toBe(
      20,
    );
    const usage = (await (await tenantCall(gateway, key, 'GET', '/api/v1/kyc/usage')).json()) as unknown;
    expect(usage).toMatchObject({
      sandbox: false,
      period: { kind: 'month' },
      quota: { limit: 20, used: 20, remaining: 0 },
      initiations: { total: 20, billable: 20 },
    });
    expect(samplesAdded(before, await initiations())).toEqual({
      'outcome="created"': 20,
      'outcome="quota_exhausted"': 30,
    });
  });

  it('lets a sandbox tenant with quota 0 initiate freely, and its usage shows nothing billable', async () => {
    const tenant = await createTenant(gateway, { name: 'Sandbox Co', sandbox: true, quotaLimit: 0 });
    const { key } = await createKey(gateway, tenant.id);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body(`x-${i}`)),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    const usage = (await (await tenantCall(gateway, key, 'GET', '/api/v1/kyc/usage')).json()) as unknown;
    expect(usage).toMatchObject({
      sandbox: true,
      quota: { limit: 0, used: 0, remaining: 0 },
      initiations: { total: 10, billable: 0 },
    });
  });
});
