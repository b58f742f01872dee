/**
 * Equal effort in oidc mode (README, "Sign-in failures", "Break-glass"): a non-admin's correct password is refused
 * after the same single hash verification a wrong password gets, so the response time does not tell an attacker
 * that the password was right. Booted gateway in oidc mode (loopback identity provider), real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson } from '../../../test/support/http.ts';
import { startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';

const PASSWORD = 'violet umbrella 42';
let db: TestDatabase;
let idp: TestIdp;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  idp = await startTestIdp();
  await seedLocalAccount(db.pool, { email: 'staff@example.com', password: PASSWORD });
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      APP_BASE_URL: 'http://127.0.0.1:3000',
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: 'gatehouse',
    },
  });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
  await db?.drop();
});

describe('a non-admin password in oidc mode', () => {
  it('right or wrong, takes the same time: the median difference of 300 back-to-back pairs within 5%', async () => {
    const durations: Record<'right' | 'wrong', number[]> = { right: [], wrong: [] };
    const once = async (kind: 'right' | 'wrong') => {
      const started = performance.now();
      const res = await postJson(gateway.url, '/auth/login', {
        email: 'staff@example.com',
        password: kind === 'right' ? PASSWORD : 'violet umbrella 43',
      });
      await res.arrayBuffer();
      durations[kind].push(performance.now() - started);
      expect(res.status).toBe(401);
    };
    for (let i = 0; i < 10; i++) await once(i % 2 ? 'wrong' : 'right'); // warm-up, not counted
    durations.right.length = 0;
    durations.wrong.length = 0;
    for (let i = 0; i < 300; i++) {
      await once('right');
      await once('wrong');
    }
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    const right = median(durations.right);
    const wrong = median(durations.wrong);
    // Paired, as in login.security.test.ts: the load of each moment weighs on both halves of a pair.
    const difference = median(durations.right.map((ms, i) => ms - (durations.wrong[i] ?? 0)));
    process.stdout.write(
      `oidc-mode login medians: non-admin right password ${right.toFixed(2)} ms, wrong ${wrong.toFixed(2)} ms, paired difference ${difference.toFixed(2)} ms\n`,
    );
    expect(Math.abs(difference) / Math.max(right, wrong)).toBeLessThan(0.05);
  }, 180_000);
});
