/**
 * The KYC API end to end (README, "For tenants: the API"): tenants and keys from the real CLI, initiate and
 * status with the keys, the sandbox outcomes, a reviewer's decision and the complete history.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import {
  kycCli,
  staff,
  staffHeaders,
  startKycGateway,
  tenantCall,
  type KycKey,
  type KycTenant,
} from '../../../test/support/kyc.ts';

interface Verification {
  id: string;
  createdAt: string;
  expiresAt: string;
  status: string;
  sandbox: boolean;
  decisionReason: string | null;
  history: Array<{ from: string | null; to: string; reason: string | null; at: string }>;
}

let db: TestDatabase;
let gateway: TestGateway;
let sandboxKey: string;
let liveKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url });
  const sandbox = await kycCli(db.url, ['tenant', 'create', '--name', 'Acme sandbox', '--sandbox']);
  expect(sandbox.code, sandbox.stderr).toBe(0);
  const live = await kycCli(db.url, ['tenant', 'create', '--name', 'Acme live', '--quota', '5']);
  expect(live.code, live.stderr).toBe(0);
  const sandboxKeyOut = await kycCli(db.url, ['key', 'create', '--tenant', (sandbox.json as KycTenant).id]);
  const liveKeyOut = await kycCli(db.url, ['key', 'create', '--tenant', (live.json as KycTenant).id]);
  sandboxKey = (sandboxKeyOut.json as KycKey).key;
  liveKey = (liveKeyOut.json as KycKey).key;
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function initiate(key: string, subjectExternalRef: string): Promise<Verification> {
  const res = await tenantCall(gateway, key, 'POST', '/api/v1/kyc/initiate', {
    type: 'INDIVIDUAL_KTP',
    subjectExternalRef,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as Verification;
}

async function statusOf(key: string, id: string): Promise<Verification> {
  const res = await tenantCall(gateway, key, 'GET', `/api/v1/kyc/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Verification;
}

describe('KYC API with CLI-made tenants and keys', () => {
  it('prints keys whose prefix tells sandbox from live', () => {
    expect(sandboxKey).toMatch(/^kyc_sandbox_[A-Za-z0-9_-]{32}$/);
    expect(liveKey).toMatch(/^kyc_live_[A-Za-z0-9_-]{32}$/);
  });

  it('drives sandbox -approve, -reject and -review to their outcomes, asynchronously', async () => {
    const cases = [
      ['ref-1-approve', 'approved'],
      ['ref-2-reject', 'rejected'],
      ['ref-3-review', 'needs_review'],
    ] as const;
    for (const [ref, outcome] of cases) {
      const created = await initiate(sandboxKey, ref);
      expect(created).toMatchObject({ status: 'pending', sandbox: true, subjectExternalRef: ref });
      await expect.poll(async () => (await statusOf(sandboxKey, created.id)).status).toBe(outcome);
      const done = await statusOf(sandboxKey, created.id);
      // The 201 body and the status route describe the same record the same way.
      expect(done).toMatchObject({
        id: created.id,
        createdAt: created.createdAt,
        expiresAt: created.expiresAt,
      });
      expect(done.history[0]).toEqual(created.history[0]);
      expect(done.history.map((h) => [h.from, h.to])).toEqual([
        [null, 'pending'],
        ['pending', 'processing'],
        ['processing', outcome],
      ]);
    }
  });

  it('lets a reviewer decide a needs_review verification; the history is complete', async () => {
    const created = await initiate(sandboxKey, 'ref-4-review');
    await expect.poll(async () => (await statusOf(sandboxKey, created.id)).status).toBe('needs_review');
    const decided = await staff<Verification>(
      gateway,
      'POST',
      `/api/v1/admin/kyc/verifications/${created.id}/decision`,
      { decision: 'approved', reason: 'document checked by hand' },
    );
    expect(decided).toMatchObject({ status: 'approved', decisionReason: 'document checked by hand' });
    const read = await statusOf(sandboxKey, created.id);
    expect(read.history.map((h) => h.to)).toEqual(['pending', 'processing', 'needs_review', 'approved']);
    expect(read.history.at(-1)?.reason).toBe('document checked by hand');
  });

  it('answers 409 kyc.invalid_transition for a decision on a decided verification', async () => {
    const created = await initiate(sandboxKey, 'ref-5-approve');
    await expect.poll(async () => (await statusOf(sandboxKey, created.id)).status).toBe('approved');
    const res = await fetch(`${gateway.url}/api/v1/admin/kyc/verifications/${created.id}/decision`, {
      method: 'POST',
      headers: await staffHeaders(),
      body: JSON.stringify({ decision: 'rejected', reason: 'second thoughts' }),
    });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      code: 'kyc.invalid_transition',
      from: 'approved',
      to: 'rejected',
    });
  });

  it('keeps a live verification processing until a reviewer decides (manual provider)', async () => {
    const created = await initiate(liveKey, 'live-subject-1');
    expect(created.sandbox).toBe(false);
    await expect.poll(async () => (await statusOf(liveKey, created.id)).status).toBe('processing');
    const decided = await staff<Verification>(
      gateway,
      'POST',
      `/api/v1/admin/kyc/verifications/${created.id}/decision`,
      { decision: 'rejected', reason: 'document expired' },
    );
    expect(decided.status).toBe('rejected');
  });

  it("answers 404 for another tenant's verification, as for one that does not exist", async () => {
    const mine = await initiate(sandboxKey, 'ref-6');
    const other = await tenantCall(gateway, liveKey, 'GET', `/api/v1/kyc/${mine.id}`);
    expect(other.status).toBe(404);
    const missing = await tenantCall(gateway, liveKey, 'GET', `/api/v1/kyc/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'kyc.verification.not_found' });
    expect((await missing.json()) as object).toMatchObject({ code: 'kyc.verification.not_found' });
  });
});
