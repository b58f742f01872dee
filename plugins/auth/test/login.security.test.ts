/**
 * Password sign-in tells an attacker nothing: unknown email, wrong password and the demo convention get one
 * answer, and an unknown email costs what a wrong password costs (one password verification either way, so
 * response times do not reveal which addresses have accounts). Against the real gateway and Postgres.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical } from '../../../test/support/accounts.ts';

const APP = 'http://localhost:3000';
let db: TestDatabase;
let gateway: TestGateway;

async function seed(email: string, password: string): Promise<string> {
  const user = await userStore.insertLocal(
    db.pool,
    canonical(email),
    await argon2.hash(password, ARGON2_PARAMS),
  );
  return user?.id ?? '';
}

const login = (gw: TestGateway, email: string, password: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });

beforeAll(async () => {
  db = await createTestDatabase();
  await seed('ada@example.com', 'violet umbrella 42');
  await seed('demo@example.com', 'demo@example.com');
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('one answer for every failed sign-in', () => {
  it('answers unknown email, wrong password and the demo convention identically; the reason is only audited', async () => {
    const cases = [
      ['nobody@example.com', 'violet umbrella 42', 'unknown_email'],
      ['ada@example.com', 'violet umbrella 43', 'wrong_password'],
      ['demo@example.com', 'demo@example.com', 'demo_account'],
    ] as const;
    const bodies: unknown[] = [];
    for (const [email, password, reason] of cases) {
      const res = await login(gateway, email, password, { 'x-request-id': `fail-${reason}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
      const { requestId: _id, ...body } = (await res.json()) as Record<string, unknown>;
      bodies.push(body);
      await gateway.audit.flush();
      const { rows } = await db.pool.query(
        "SELECT payload->>'reason' AS reason FROM audit_log WHERE kind = 'auth.login.failure' AND request_id = $1",
        [`fail-${reason}`],
      );
      expect(rows).toEqual([{ reason }]);
    }
    expect(bodies[0]).toMatchObject({ code: 'auth.invalid_credentials', status: 401 });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
  });
});

describe('equal effort (README, "Sign-in failures")', () => {
  it('unknown-email and wrong-password logins take the same time: the median difference of 300 back-to-back pairs within 5%', async () => {
    const durations: Record<'unknown' | 'wrong', number[]> = { unknown: [], wrong: [] };
    const once = async (kind: 'unknown' | 'wrong') => {
      const started = performance.now();
      const res = await login(
        gateway,
        kind === 'unknown' ? 'ghost@example.com' : 'ada@example.com',
        'not the password at all',
      );
      await res.arrayBuffer();
      durations[kind].push(performance.now() - started);
      expect(res.status).toBe(401);
    };
    for (let i = 0; i < 10; i++) await once(i % 2 ? 'wrong' : 'unknown'); // warm-up, not counted
    durations.unknown.length = 0;
    durations.wrong.length = 0;
    // Interleaved, so drift in machine load touches both alike.
    for (let i = 0; i < 300; i++) {
      await once('unknown');
      await once('wrong');
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const unknown = median(durations.unknown);
    const wrong = median(durations.wrong);
    // Each pair ran back to back, so the load of that moment weighs on both: the median of the pairs'
    // differences is what the two paths cost apart, without the drift a busy machine adds to two medians.
    const difference = median(durations.unknown.map((ms, i) => ms - (durations.wrong[i] ?? 0)));
    process.stdout.write(
      `login medians: unknown email ${unknown.toFixed(2)} ms, wrong password ${wrong.toFixed(2)} ms, paired difference ${difference.toFixed(2)} ms\n`,
    );
    expect(Math.abs(difference) / Math.max(unknown, wrong)).toBeLessThan(0.05);
  }, 120_000);
});
