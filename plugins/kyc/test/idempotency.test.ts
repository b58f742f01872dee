/**
 * Idempotency-Key on initiate (README, "Idempotency"), with truly parallel requests against the real
 * gateway and Postgres: a retry replays the first answer, a reused key with another body is refused,
 * concurrent duplicates make one verification, and keys belong to one tenant.
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

describe('Idempotency-Key on initiate', () => {
  let key: string;
  let tenantId: string;
  beforeAll(async () => {
    const tenant = await createTenant(gateway, { name: 'Idem Co', quotaLimit: 100 });
    tenantId = tenant.id;
    key = (await createKey(gateway, tenant.id)).key;
  });

  it('replays the original response (status and body) for the same key and body, without a second verification', async () => {
    const headers = { 'idempotency-key': 'order-1' };
    const initiations = () => metricSamples(gateway.metricsUrl, 'gatehouse_kyc_initiations_total');
    const before = await initiations();
    const first = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body('idem-1'), headers);
    expect(first.status).toBe(201);
    const firstBody = (await first.json()) as unknown;
    const again = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body('idem-1'), headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    expect(
      await count(
        'SELECT count(*) AS n FROM kyc_verifications WHERE tenant_id = $1 AND subject_external_ref = $2',
        [tenantId, 'idem-1'],
      ),
    ).toBe(1);
    // One unit of quota, not two.
    const usage = (await (await tenantCall(gateway, key, 'GET', '/api/v1/kyc/usage')).json()) as {
      quota: { used: number };
    };
    expect(usage.quota.used).toBe(1);
    expect(samplesAdded(before, await initiations())).toEqual({
      'outcome="created"': 1,
      'outcome="replayed"': 1,
    });
  });

  it('answers 422 kyc.idempotency_mismatch for the same key with another body, writing nothing', async () => {
    const headers = { 'idempotency-key': 'order-2' };
    expect(
      (await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body('idem-2'), headers)).status,
    ).toBe(201);
    const before = await count('SELECT count(*) AS n FROM kyc_verifications WHERE tenant_id = $1', [
      tenantId,
    ]);
    const other = await tenantCall(
      gateway,
      key,
      'POST',
      '/api/v1/kyc/initiate',
      body('idem-2-other'),
      headers,
    );
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ code: 'kyc.idempotency_mismatch' });
    expect(await count('SELECT count(*) AS n FROM kyc_verifications WHERE tenant_id = $1', [tenantId])).toBe(
      before,
    );
  });

  it('makes one verification of 20 concurrent duplicates, all answered with the same body', async () => {
    const headers = { 'idempotency-key': 'order-3' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body('idem-3'), headers),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(
      await Promise.all(responses.map(async (r) => ((await r.json()) as { id: string }).id)),
    );
    expect(ids.size).toBe(1);
    expect(
      await count(
        'SELECT count(*) AS n FROM kyc_verifications WHERE tenant_id = $1 AND subject_external_ref = $2',
        [tenantId, 'idem-3'],
      ),
    ).toBe(1);
  });

  it('keeps keys per tenant: another tenant may use the same Idempotency-Key', async () => {
    const other = await createTenant(gateway, { name: 'Other Co', sandbox: true });
    const otherKey = (await createKey(gateway, other.id)).key;
    const headers = { 'idempotency-key': 'order-1' };
    const res = await tenantCall(
      gateway,
      otherKey,
      'POST',
      '/api/v1/kyc/initiate',
      body('idem-other'),
      headers,
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a malformed Idempotency-Key with 400 and writes nothing', async () => {
    const res = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', body('idem-bad'), {
      'idempotency-key': 'x'.repeat(256),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'kyc.idempotency_key.invalid' });
    expect(
      await count('SELECT count(*) AS n FROM kyc_verifications WHERE subject_external_ref = $1', [
        'idem-bad',
      ]),
    ).toBe(0);
  });
});
