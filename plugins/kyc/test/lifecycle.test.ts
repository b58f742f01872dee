/**
 * The verification lifecycle over time (README, "Statuses"): open verifications expire
 * 7 days after initiation, decided ones do not, and an expired one cannot be decided. Time is a manual
 * clock moved by the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import type { TestGateway } from '../../../test/support/gateway.ts';
import { createManualClock } from '../../../test/support/core.ts';
import {
  createKey,
  createTenant,
  staffHeaders,
  startKycGateway,
  tenantCall,
} from '../../../test/support/kyc.ts';

const DAY = 86_400_000;
let db: TestDatabase;
let gateway: TestGateway;
// Starts at the real time: staff session tokens carry real expiry times.
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startKycGateway({ databaseUrl: db.url, clock });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

interface Verification {
  id: string;
  status: string;
  expiresAt: string;
  createdAt: string;
  history: Array<{ from: string | null; to: string; reason: string | null }>;
}

describe('expiry', () => {
  it('expires open verifications 7 days after initiation, not decided ones, and refuses deciding them', async () => {
    const tenant = await createTenant(gateway, { name: 'Slow Co', quotaLimit: 10 });
    const { key } = await createKey(gateway, tenant.id);
    const sandbox = await createTenant(gateway, { name: 'Slow Sandbox', sandbox: true });
    const sandboxKey = (await createKey(gateway, sandbox.id)).key;
    const start = async (k: string, ref: string) =>
      (await (
        await tenantCall(gateway, k, 'POST', '/api/v1/kyc/initiate', {
          type: 'INDIVIDUAL_KTP',
          subjectExternalRef: ref,
        })
      ).json()) as Verification;
    const read = async (k: string, id: string) =>
      (await (await tenantCall(gateway, k, 'GET', `/api/v1/kyc/${id}`)).json()) as Verification;

    const open = await start(key, 'waits-for-a-reviewer');
    expect(Date.parse(open.expiresAt) - Date.parse(open.createdAt)).toBe(7 * DAY);
    const decided = await start(sandboxKey, 'quick-approve');
    await expect.poll(async () => (await read(key, open.id)).status).toBe('processing');
    await expect.poll(async () => (await read(sandboxKey, decided.id)).status).toBe('approved');

    clock.advance(7 * DAY - 1_000);
    // A worker pass later, still processing: not yet 7 days.
    const tenantRead = await read(key, open.id);
    expect(tenantRead.status).toBe('processing');

    clock.advance(1_000);
    await expect.poll(async () => (await read(key, open.id)).status).toBe('expired');
    const expired = await read(key, open.id);
    expect(expired.history.map((h) => h.to)).toEqual(['pending', 'processing', 'expired']);
    expect(expired.history.at(-1)?.reason).toBe('not decided within 7 days');
    expect((await read(sandboxKey, decided.id)).status).toBe('approved');

    const late = await fetch(`${gateway.url}/api/v1/admin/kyc/verifications/${open.id}/decision`, {
      method: 'POST',
      // A session minted now must still be valid 7 days later on the moved clock.
      headers: await staffHeaders(['kyc:admin'], 30 * 86_400),
      body: JSON.stringify({ decision: 'approved', reason: 'too late' }),
    });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({
      code: 'kyc.invalid_transition',
      from: 'expired',
      to: 'approved',
    });
    clock.advance(-7 * DAY);
  });
});

describe('Idempotency-Key lifetime', () => {
  it('replays within 24 hours; after that the key starts a new verification', async () => {
    const tenant = await createTenant(gateway, { name: 'Idem Clock Co', sandbox: true });
    const { key } = await createKey(gateway, tenant.id);
    const send = (ref: string) =>
      tenantCall(
        gateway,
        key,
        'POST',
        '/api/v1/kyc/initiate',
        { type: 'INDIVIDUAL_KTP', subjectExternalRef: ref },
        { 'idempotency-key': 'daily-batch' },
      );
    const first = (await (await send('idem-day')).json()) as Verification;
    clock.advance(DAY - 1_000);
    const replay = await send('idem-day');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as Verification).id).toBe(first.id);
    clock.advance(1_000);
    // Expired: the same key, even with another body, is a new request now.
    const fresh = await send('idem-next-day');
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(((await fresh.json()) as Verification).id).not.toBe(first.id);
    clock.advance(-DAY);
  });
});
