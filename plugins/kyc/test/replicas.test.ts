/**
 * Two gateways on one database (ADR 0005): a status change made through one replica is read from the
 * other at once, although the other had the verification in its cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createKey, createTenant, staff, startKycGateway, tenantCall } from '../../../test/support/kyc.ts';

let db: TestDatabase;
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  a = await startKycGateway({ databaseUrl: db.url });
  b = await startKycGateway({ databaseUrl: db.url });
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

const statusOn = async (gateway: TestGateway, key: string, id: string) =>
  ((await (await tenantCall(gateway, key, 'GET', `/api/v1/kyc/${id}`)).json()) as { status: string }).status;

describe('verification reads across replicas', () => {
  it('serves the new status on replica B right after a reviewer decides through replica A', async () => {
    const tenant = await createTenant(a, { name: 'Two Replicas Co', quotaLimit: 5 });
    const { key } = await createKey(a, tenant.id);
    const created = (await (
      await tenantCall(a, key, 'POST', '/api/v1/kyc/initiate', {
        type: 'INDIVIDUAL_KTP',
        subjectExternalRef: 'rep-1',
      })
    ).json()) as { id: string };
    await expect.poll(() => statusOn(b, key, created.id)).toBe('processing');
    // B has the view cached now; reading it again is served from memory.
    expect(await statusOn(b, key, created.id)).toBe('processing');
    await staff(a, 'POST', `/api/v1/admin/kyc/verifications/${created.id}/decision`, {
      decision: 'approved',
      reason: 'checked',
    });
    expect(await statusOn(a, key, created.id)).toBe('approved');
    // The NOTIFY reaches B within moments; without it the cache would keep "processing" for 30 s, so a
    // bound well under that still tells the two apart, and leaves a loaded machine room.
    await expect.poll(() => statusOn(b, key, created.id), { timeout: 15_000 }).toBe('approved');
  });
});
