/**
 * Rate limits per API key (README, "Rate limits"): `RateLimit-*` headers on every authenticated answer, 429
 * `kyc.rate_limited` with `Retry-After` beyond the limit, and one limit shared by two gateways on one
 * database, even under a parallel burst (tokens are leased atomically).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createKey, createTenant, startKycGateway, tenantCall } from '../../../test/support/kyc.ts';

let db: TestDatabase;
// Starts at the real time: the staff session tokens are minted with real expiry times.
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('rate limits', () => {
  it('sends RateLimit-* headers on every response and 429 kyc.rate_limited with Retry-After beyond the limit, shared by two gateways', async () => {
    const limits = { KYC_RATE_LIMIT: '6', KYC_RATE_LIMIT_WINDOW_SECONDS: '60' };
    const a = await startKycGateway({ databaseUrl: db.url, clock, env: limits });
    const b = await startKycGateway({ databaseUrl: db.url, clock, env: limits });
    try {
      const tenant = await createTenant(a, { name: 'Busy Co', sandbox: true });
      const { key } = await createKey(a, tenant.id);
      const statuses: number[] = [];
      const remaining: Array<string | null> = [];
      for (let i = 0; i < 10; i++) {
        const res = await tenantCall(i % 2 === 0 ? a : b, key, 'GET', `/api/v1/kyc/${crypto.randomUUID()}`);
        statuses.push(res.status);
        remaining.push(res.headers.get('ratelimit-remaining'));
        expect(res.headers.get('ratelimit-limit')).toBe('6');
        expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
        if (res.status === 429) {
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect(await res.json()).toMatchObject({ code: 'kyc.rate_limited' });
        }
      }
      // 404s (unknown ids) count like any request; the two gateways together admit exactly 6.
      expect(statuses).toEqual([404, 404, 404, 404, 404, 404, 429, 429, 429, 429]);
      expect(remaining.slice(6)).toEqual(['0', '0', '0', '0']);
      // A new window admits again.
      clock.advance(60_000);
      expect((await tenantCall(a, key, 'GET', '/api/v1/kyc/usage')).status).toBe(200);
      expect((await tenantCall(b, key, 'GET', '/api/v1/kyc/usage')).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('admits no more of a parallel burst on two gateways than of a serial run: tokens are leased atomically', async () => {
    const limits = { KYC_RATE_LIMIT: '7', KYC_RATE_LIMIT_WINDOW_SECONDS: '60' };
    const a = await startKycGateway({ databaseUrl: db.url, clock, env: limits });
    const b = await startKycGateway({ databaseUrl: db.url, clock, env: limits });
    try {
      // A fresh window for the burst: no replica holds leased tokens of it yet.
      clock.advance(60_000);
      const tenant = await createTenant(a, { name: 'Burst Co', sandbox: true });
      const { key } = await createKey(a, tenant.id);
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          tenantCall(i % 2 === 0 ? a : b, key, 'GET', '/api/v1/kyc/usage').then((res) => res.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(7);
      expect(statuses.filter((status) => status === 429)).toHaveLength(33);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
