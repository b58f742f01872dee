/** Brute-force limits (issue 4, point 7): the 429, its Retry-After, and counters shared by replicas. */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../gateway/src/clock.ts';
import { ARGON2_PARAMS } from '../plugins/auth/src/service/password-hasher.ts';
import { userStore } from '../plugins/auth/src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { startTestGateway, type TestGateway } from './helpers/gateway.ts';
import { canonical } from './helpers/accounts.ts';

const clock = createManualClock(Date.now());
let db: TestDatabase;
let replicas: TestGateway[];

const limits = {
  GATEWAY_PLUGINS: 'auth',
  LOGIN_FREE_FAILURES_PER_ACCOUNT: '3',
  LOGIN_FREE_FAILURES_PER_IP: '50',
  REGISTER_FREE_ATTEMPTS_PER_IP: '2',
};

beforeAll(async () => {
  db = await createTestDatabase();
  await userStore.insertLocal(
    db.pool,
    canonical('ada@example.com'),
    await argon2.hash('violet umbrella 42', ARGON2_PARAMS),
  );
  replicas = [
    await startTestGateway({ databaseUrl: db.url, env: limits, clock }),
    await startTestGateway({ databaseUrl: db.url, env: limits, clock }),
  ];
});
afterAll(async () => {
  for (const gateway of replicas ?? []) await gateway.close();
  await db?.drop();
});

const login = (gateway: TestGateway | undefined, password: string, email = 'ada@example.com') =>
  fetch(`${gateway?.url ?? ''}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

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
