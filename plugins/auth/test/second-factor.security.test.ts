/**
 * The security properties of second factors (README, "Second factors", "Recovery codes", "Brute-force limits"):
 * recovery codes single use under parallel use and invalidated by a new set, guesses limited per account across
 * sign-ins, and no secret, code or token in the audit trail or the log. Booted gateway, real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson } from '../../../test/support/http.ts';
import {
  passwordSignIn,
  seedEnrolledAccount,
  totpCode,
  totpStep,
  withCookie,
  type Caller,
} from '../../../test/support/second-factor.ts';

const APP = 'http://localhost:3000';
const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
/** Every secret the suite saw: none may appear in an audit row or a log line. */
const secrets = new Set<string>();
let db: TestDatabase;
let gateway: TestGateway;
let caller: Caller;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: {
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      APP_BASE_URL: APP,
      AUTH_MODE: 'local',
      LOGIN_FREE_FAILURES_PER_ACCOUNT: '5',
      LOG_LEVEL: 'debug',
    },
  });
  caller = { url: gateway.url, origin: APP };
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function enrolled(email: string) {
  const account = await seedEnrolledAccount(caller, db.pool, clock, { email, password: PASSWORD });
  for (const value of [account.secret, account.burned, account.cookie, ...account.recoveryCodes])
    secrets.add(value);
  return account;
}

const recoveryStep = (pendingToken: string, code: string) =>
  postJson(gateway.url, '/api/v1/auth/login/recovery-code', { pendingToken, code });

describe('recovery codes', () => {
  it('sign in once each: a used code is refused, and each use is audited', async () => {
    const { userId, recoveryCodes } = await enrolled('codes@example.com');
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const [code] = recoveryCodes as [string];
    const first = await passwordSignIn(caller, 'codes@example.com', PASSWORD);
    secrets.add(first.body.pendingToken ?? '');
    // Typed as people type: upper case, spaces instead of the dash.
    const used = await recoveryStep(first.body.pendingToken ?? '', code.toUpperCase().replace('-', ' '));
    expect(used.status).toBe(200);
    const again = await passwordSignIn(caller, 'codes@example.com', PASSWORD);
    expect(again.body.methods?.recoveryCode).toBe(true);
    const reused = await recoveryStep(again.body.pendingToken ?? '', code);
    expect(reused.status).toBe(401);
    await gateway.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT kind FROM audit_log WHERE actor = $1 AND kind IN ('auth.recovery_code.used', 'auth.recovery_code.failed') ORDER BY id",
      [userId],
    );
    expect(rows).toEqual([{ kind: 'auth.recovery_code.used' }, { kind: 'auth.recovery_code.failed' }]);
  });

  it('one code presented by 10 parallel sign-ins signs in exactly once', async () => {
    const { userId, recoveryCodes } = await enrolled('parallel-codes@example.com');
    // The sign-ins one after the other (a burst of passwords would meet the login limits), the codes at once.
    const pending = [];
    for (let i = 0; i < 10; i++)
      pending.push(await passwordSignIn(caller, 'parallel-codes@example.com', PASSWORD));
    const results = await Promise.all(
      pending.map(({ body }) => recoveryStep(body.pendingToken ?? '', recoveryCodes[1] ?? '')),
    );
    const statuses = results.map((res) => res.status);
    // One winner; the others are refused, as wrong codes (401) or, past the account's allowance, unseen (429).
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200 && status !== 401 && status !== 429)).toEqual([]);
    const { rows } = await db.pool.query(
      'SELECT count(*)::int AS used FROM auth_recovery_codes WHERE user_id = $1 AND used_at IS NOT NULL',
      [userId],
    );
    expect(rows[0]).toEqual({ used: 1 });
  });

  it('a new set (after a step-up) makes every old code stop working', async () => {
    const { secret, recoveryCodes } = await enrolled('regenerate@example.com');
    const first = await passwordSignIn(caller, 'regenerate@example.com', PASSWORD);
    const done = await totpStep(caller, first.body.pendingToken ?? '', await totpCode(secret, clock.now()));
    clock.advance(30_000);
    const res = await postJson(
      gateway.url,
      '/api/v1/auth/recovery-codes',
      {},
      withCookie(caller, done.cookie),
    );
    expect(res.status).toBe(201);
    const fresh = ((await res.json()) as { recoveryCodes: string[] }).recoveryCodes;
    for (const value of fresh) secrets.add(value);
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((value) => recoveryCodes.includes(value))).toEqual([]);
    const next = await passwordSignIn(caller, 'regenerate@example.com', PASSWORD);
    expect((await recoveryStep(next.body.pendingToken ?? '', recoveryCodes[2] ?? '')).status).toBe(401);
    expect((await recoveryStep(next.body.pendingToken ?? '', fresh[0] ?? '')).status).toBe(200);
  });
});

describe('brute-force limits on second factors', () => {
  it('count wrong codes per account across sign-ins: past the allowance, 429 with Retry-After', async () => {
    const { secret } = await enrolled('guessed@example.com');
    const good = await totpCode(secret, clock.now());
    const bad = good === '000000' ? '111111' : '000000';
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      // A new pending sign-in each time: dropping one after 5 codes must not reset the count.
      const { body } = await passwordSignIn(caller, 'guessed@example.com', PASSWORD);
      const res = await totpStep(caller, body.pendingToken ?? '', bad);
      statuses.push(res.res.status);
      if (res.res.status === 429) expect(Number(res.res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Five free guesses; the sixth is counted and starts the delay; the seventh, within it, is refused unseen.
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
    // The delay ends: the right code works again.
    clock.advance(60 * 60_000);
    const { body } = await passwordSignIn(caller, 'guessed@example.com', PASSWORD);
    expect(
      (await totpStep(caller, body.pendingToken ?? '', await totpCode(secret, clock.now()))).res.status,
    ).toBe(200);
  });
});

describe('secrets stay out of the audit trail and the log', () => {
  it('no TOTP secret, code, recovery code, pending token or session token appears anywhere', async () => {
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ payload: string }>('SELECT payload::text FROM audit_log');
    const logs = JSON.stringify(gateway.logs());
    for (const value of secrets) {
      if (value.length < 6) continue;
      for (const row of rows) expect(row.payload).not.toContain(value);
      expect(logs).not.toContain(value);
    }
  });
});
