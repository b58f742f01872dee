/** Brute-force limits (README, "Brute-force limits"): the 429, its Retry-After, and counters shared by replicas. */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createManualClock } from '../../../test/support/core.ts';

const clock = createManualClock(Date.now());
let db: TestDatabase;
let replicas: TestGateway[];

const limits = {
  GATEWAY_PLUGINS: 'auth',
  LOGIN_FREE_FAILURES_PER_ACCOUNT: '3',
  LOGIN_FREE_FAILURES_PER_IP: '20',
  REGISTER_FREE_ATTEMPTS_PER_IP: '2',
  // The client address comes from X-Forwarded-For, so one test process can be many clients.
  TRUST_PROXY: 'loopback',
  // Bursts queue for the hasher on a busy machine: a 503 would hide what the limits answered.
  LOGIN_HASH_WAIT_MS: '60000',
};

beforeAll(async () => {
  db = await createTestDatabase();
  for (const email of ['ada@example.com', 'serial@example.com', 'burst@example.com'])
    await userStore.insertLocal(db.pool, canonical(email), await argon2.hash(PASSWORD, ARGON2_PARAMS));
  replicas = [
    await startTestGateway({ databaseUrl: db.url, env: limits, clock }),
    await startTestGateway({ databaseUrl: db.url, env: limits, clock }),
  ];
});
afterAll(async () => {
  for (const gateway of replicas ?? []) await gateway.close();
  await db?.drop();
});

const PASSWORD = 'violet umbrella 42';

const login = (
  gateway: TestGateway | undefined,
  password: string,
  email = 'ada@example.com',
  from?: string,
) =>
  fetch(`${gateway?.url ?? ''}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(from ? { 'x-forwarded-for': from } : {}) },
    body: JSON.stringify({ email, password }),
  });

const register = (gateway: TestGateway | undefined, email: string, from: string) =>
  fetch(`${gateway?.url ?? ''}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ email, password: 'cobol forever 1959' }),
  });

/** Sends attempts one after the other until the first 429; how many were answered before it. */
async function seriesUntilRefused(send: (i: number) => Promise<Response>): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const res = await send(i);
    await res.arrayBuffer();
    if (res.status === 429) return i;
  }
  throw new Error('the series was never refused');
}

/** Sends `count` attempts at once, alternating replicas; the statuses, and every 429 has a Retry-After. */
async function burst(count: number, send: (i: number) => Promise<Response>): Promise<Record<number, number>> {
  const answers = await Promise.all(Array.from({ length: count }, (_, i) => send(i)));
  const statuses: Record<number, number> = {};
  for (const res of answers) {
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  return statuses;
}

const replica = (i: number) => replicas[i % 2];

describe('login limits', () => {
  it('after the free failures: 429 with Retry-After, honoured and doubling, on every replica; never permanent', async () => {
    const [a, b] = replicas;
    // Three free failures, spread over both replicas: the counter is shared.
    expect((await login(a, 'wrong 1')).status).toBe(401);
    expect((await login(b, 'wrong 2')).status).toBe(401);
    expect((await login(a, 'wrong 3')).status).toBe(401);
    // The fourth failure starts the delay (1 s); even the right password waits.
    expect((await login(b, 'wrong 4')).status).toBe(401);
    for (const gateway of [a, b]) {
      const limited = await login(gateway, 'violet umbrella 42');
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('1');
      expect(await limited.json()).toMatchObject({ code: 'auth.rate_limited', retryAfter: 1 });
    }
    // Honour Retry-After: one more try is allowed; failing it doubles the delay.
    clock.advance(1_000);
    expect((await login(a, 'wrong 5')).status).toBe(401);
    const doubled = await login(b, 'violet umbrella 42');
    expect(doubled.status).toBe(429);
    expect(doubled.headers.get('retry-after')).toBe('2');
    clock.advance(2_000);
    // The right password after waiting signs in, and resets the account's counter.
    expect((await login(a, 'violet umbrella 42')).status).toBe(200);
    expect((await login(b, 'wrong again')).status).toBe(401);
  });

  it('counts unknown emails like known ones (the limit reveals nothing)', async () => {
    for (let i = 0; i < 4; i++)
      expect((await login(replicas[0], `nope ${i}`, 'ghost@example.com')).status).toBe(401);
    expect((await login(replicas[1], 'nope', 'ghost@example.com')).status).toBe(429);
  });
});

describe('registration limits', () => {
  it('limits registration attempts per client address', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const register = (i: number) =>
      fetch(`${replicas[i % 2]?.url ?? ''}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `r${i}@example.com`, password: `violet umbrella ${i}xyz` }),
      });
    expect((await register(0)).status).toBe(201);
    expect((await register(1)).status).toBe(201);
    expect((await register(2)).status).toBe(201);
    const limited = await register(3);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });
});

describe('parallel bursts get no more than a series', () => {
  it('40 wrong passwords for one account from 40 addresses at once: as many 401s as one after the other, on two replicas', async () => {
    const series = await seriesUntilRefused((i) =>
      login(replica(i), `wrong ${i}`, 'serial@example.com', `198.51.100.${i + 1}`),
    );
    expect(series).toBe(4);
    const statuses = await burst(40, (i) =>
      login(replica(i), `wrong ${i}`, 'burst@example.com', `203.0.113.${i + 1}`),
    );
    expect(statuses).toEqual({ 401: series, 429: 40 - series });
    // As after a series: once the delay has passed, the right password signs in and clears the counter.
    clock.advance(60_000);
    expect((await login(replica(1), PASSWORD, 'burst@example.com', '203.0.113.200')).status).toBe(200);
    expect((await login(replica(0), 'wrong again', 'burst@example.com', '203.0.113.201')).status).toBe(401);
  });

  it('40 wrong logins from one address over 40 accounts at once: as many 401s as one after the other', async () => {
    const series = await seriesUntilRefused((i) =>
      login(replica(i), 'wrong', `series-${i}@example.com`, '198.51.100.250'),
    );
    expect(series).toBe(21);
    const statuses = await burst(40, (i) =>
      login(replica(i), 'wrong', `burst-${i}@example.com`, '203.0.113.250'),
    );
    expect(statuses).toEqual({ 401: series, 429: 40 - series });
    // A success from the address does not use up its allowance: it gets its place back.
    clock.advance(3_600_000);
    for (let i = 0; i < 25; i++)
      expect((await login(replica(i), PASSWORD, 'serial@example.com', '203.0.113.251')).status).toBe(200);
  });

  it('40 registrations from one address at once: as many as one after the other', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const series = await seriesUntilRefused((i) =>
      register(replica(i), `series-r${i}@example.com`, '198.51.100.251'),
    );
    expect(series).toBe(3);
    const statuses = await burst(40, (i) => register(replica(i), `burst-r${i}@example.com`, '203.0.113.252'));
    expect(statuses).toEqual({ 201: series, 429: 40 - series });
  });
});

describe('an attempt without a verdict', () => {
  it('a login refused as busy (no hash slot) gives its place back: the counter holds the 401s only', async () => {
    const busy = await startTestGateway({
      databaseUrl: db.url,
      clock,
      env: {
        ...limits,
        LOGIN_FREE_FAILURES_PER_ACCOUNT: '1000',
        LOGIN_MAX_CONCURRENT_HASHES: '1',
        LOGIN_HASH_WAIT_MS: '0',
      },
    });
    try {
      const statuses = await burst(12, (i) =>
        login(busy, `wrong ${i}`, 'busy@example.com', `192.0.2.${i + 1}`),
      );
      process.stdout.write(`busy burst: ${JSON.stringify(statuses)}\n`);
      expect((statuses[401] ?? 0) + (statuses[503] ?? 0)).toBe(12);
      const { rows } = await db.pool.query<{ failures: number }>(
        "SELECT failures FROM auth_attempts WHERE scope = 'login:account' AND key = 'busy@example.com'",
      );
      expect(rows[0]?.failures ?? 0).toBe(statuses[401] ?? 0);
    } finally {
      await busy.close();
    }
  });
});
