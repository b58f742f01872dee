/**
 * One canonical form of an account email (docs/adr/0008-canonical-email.md) for storage, lookup and the
 * brute-force limits: no second spelling of an address gets a fresh allowance on its account, or signs in
 * past a block. Through HTTP against the real gateway and Postgres.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode } from '../../../test/support/http.ts';
import { createManualClock } from '../../../test/support/core.ts';

const PASSWORD = 'violet umbrella 42';
const VICTIM = 'victim.one@example.com';
const clock = createManualClock(Date.now());
let db: TestDatabase;
let gateway: TestGateway;
let victimId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const user = await userStore.insertLocal(
    db.pool,
    canonical(VICTIM),
    await argon2.hash(PASSWORD, ARGON2_PARAMS),
  );
  victimId = user?.id ?? '';
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: { GATEWAY_PLUGINS: 'auth', LOGIN_FREE_FAILURES_PER_ACCOUNT: '3' },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const login = (email: string, password: string) => postJson(gateway.url, '/auth/login', { email, password });

describe('the per-account limit and the lookup agree on the account', () => {
  it('once the real address is blocked, no other spelling of it gets a fresh allowance or signs in', async () => {
    for (let i = 0; i < 4; i++) expect((await login(VICTIM, `wrong ${i}`)).status).toBe(401);
    expect((await login(VICTIM, PASSWORD)).status).toBe(429);

    // Spellings that fold to the real address share its counter: blocked like it.
    const sameAccount = [
      'VICTIM.ONE@EXAMPLE.COM',
      'Victim.One@Example.com',
      'ｖｉｃｔｉｍ.ｏｎｅ＠ｅｘａｍｐｌｅ.ｃｏｍ', // full width
      'ＶＩＣＴＩＭ.one@example.com',
      '\u3000victim.one@example.com\u00a0', // ideographic and no-break spaces around it
    ];
    // Spellings with no canonical form (the dotted and dotless i, a Cyrillic lookalike, invisible
    // characters): refused as addresses before any account or counter is touched.
    const refused = [
      'v\u0130ctim.one@example.com',
      'v\u0131ctim.one@example.com',
      'v\u0456ctim.one@example.com',
      'victim\u200b.one@example.com',
      'victim.one@example.com\u0000',
    ];
    // Every answer at once, so a failure shows them all.
    const answers: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const [emails, status] of [
      [sameAccount, 429],
      [refused, 400],
    ] as const) {
      for (const email of emails) {
        for (const password of [PASSWORD, 'wrong again']) {
          const res = await login(email, password);
          const key = `${JSON.stringify(email)} ${password}`;
          answers[key] = `${res.status} ${res.status === 200 ? 'signed in' : await problemCode(res)}`;
          // U+0000 never reaches the schema: the core's text guard refuses it first.
          const refusal = email.includes('\u0000') ? '400 request.invalid_text' : '400 validation.failed';
          expected[key] = status === 429 ? '429 auth.rate_limited' : refusal;
        }
      }
    }
    expect(answers).toEqual(expected);
    // One counter, under the canonical address: nothing else was counted.
    const { rows } = await db.pool.query(
      "SELECT key, failures FROM auth_attempts WHERE scope = 'login:account' ORDER BY key",
    );
    expect(rows).toEqual([{ key: VICTIM, failures: 4 }]);

    // After the delay, any spelling of the address signs in to the one account.
    clock.advance(2_000);
    const res = await login('ＶＩＣＴＩＭ.ONE@example.com', PASSWORD);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { id: victimId, email: VICTIM } });
  });
});

describe('registration stores the canonical form', () => {
  it('a full-width or upper-case spelling registers the canonical address, and a second spelling is taken', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const first = await postJson(gateway.url, '/auth/register', {
      email: 'ＧＲＡＣＥ@Example.com',
      password: 'cobol forever 1959',
    });
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ user: { email: 'grace@example.com' } });
    const again = await postJson(gateway.url, '/auth/register', {
      email: 'grace@EXAMPLE.com',
      password: 'cobol forever 1959',
    });
    expect(again.status).toBe(409);
    const refused = await postJson(gateway.url, '/auth/register', {
      email: 'gr\u0130ce@example.com',
      password: 'cobol forever 1959',
    });
    expect(refused.status).toBe(400);
    const { rows } = await db.pool.query("SELECT email FROM auth_users WHERE email LIKE '%grace%'");
    expect(rows).toEqual([{ email: 'grace@example.com' }]);
  });
});
