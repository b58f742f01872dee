/**
 * TOTP as a second factor (README, "TOTP"): enrollment, confirmation, the second step of a password sign-in and
 * the replay guard, against the booted gateway and real PostgreSQL. Time is a manual clock, so a code's step is
 * chosen, not waited for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson } from '../../../test/support/http.ts';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  seedEnrolledAccount,
  totpCode,
  totpStep,
  withCookie,
  type Caller,
} from '../../../test/support/second-factor.ts';
import { metricSamples, samplesAdded } from '../../../test/support/metric-samples.ts';

const APP = 'http://localhost:3000';
const PASSWORD = 'violet umbrella 42';
// 10 s into a 30-second step: one step back and one ahead are whole steps away.
const clock = createManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
let db: TestDatabase;
let gateway: TestGateway;
let caller: Caller;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP },
  });
  caller = { url: gateway.url, origin: APP };
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const at = (steps: number) => new Date(clock.nowMs() + steps * 30_000);

/** An account signed in with a password and enrolled in TOTP; its secret. */
const enrolled = (email: string) =>
  seedEnrolledAccount(caller, db.pool, clock, { email, password: PASSWORD });

async function auditKinds(userId: string): Promise<string[]> {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ kind: string }>(
    "SELECT kind FROM audit_log WHERE actor = $1 AND kind LIKE 'auth.%' ORDER BY id",
    [userId],
  );
  return rows.map((row) => row.kind);
}

describe('enrollment', () => {
  it('shows an otpauth URI and a QR code once, seals the secret, and gives 10 recovery codes on confirmation', async () => {
    await seedLocalAccount(db.pool, { email: 'enrol@example.com', password: PASSWORD });
    const { cookie } = await passwordSignIn(caller, 'enrol@example.com', PASSWORD);
    const shown = await beginTotp(caller, { cookie });
    expect(shown.otpauthUri).toMatch(
      /^otpauth:\/\/totp\/Gatehouse:enrol%40example\.com\?secret=[A-Z2-7]+&issuer=Gatehouse$/,
    );
    expect(shown.qrCodeSvg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const { rows } = await db.pool.query<{ sealed: Buffer }>(
      "SELECT secret_sealed AS sealed FROM auth_totp t JOIN auth_users u ON u.id = t.user_id WHERE u.email = 'enrol@example.com'",
    );
    expect(rows[0]?.sealed.toString('latin1')).not.toContain(shown.secret);

    const wrong = await confirmTotp(
      caller,
      { cookie },
      '000000' === (await totpCode(shown.secret, at(0))) ? '111111' : '000000',
    );
    expect(wrong.res.status).toBe(401);
    const confirmed = await confirmTotp(caller, { cookie }, await totpCode(shown.secret, at(0)));
    expect(confirmed.res.status).toBe(200);
    expect(confirmed.body).toMatchObject({ enrolled: true });
    expect(confirmed.body.recoveryCodes).toHaveLength(10);
    // One enrollment per account: a second one needs the first removed.
    const again = await postJson(gateway.url, '/api/v1/auth/totp/enroll', {}, withCookie(caller, cookie));
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe('auth.totp.already_enrolled');
  });

  it('burns the confirming code: it cannot be the first sign-in code', async () => {
    await seedLocalAccount(db.pool, { email: 'burn@example.com', password: PASSWORD });
    const { cookie } = await passwordSignIn(caller, 'burn@example.com', PASSWORD);
    const { secret } = await beginTotp(caller, { cookie });
    const code = await totpCode(secret, at(0));
    expect((await confirmTotp(caller, { cookie }, code)).res.status).toBe(200);
    const first = await passwordSignIn(caller, 'burn@example.com', PASSWORD);
    expect(first.body.status).toBe('second_factor_required');
    const replay = await totpStep(caller, first.body.pendingToken ?? '', code);
    expect(replay.res.status).toBe(401);
    expect(replay.body.code).toBe('auth.second_factor.invalid');
    expect(replay.cookie).toBe('');
  });
});

describe('sign-in with TOTP', () => {
  it('asks for the code after the password, issues the session after it, and refuses the same code again', async () => {
    const { userId, secret } = await enrolled('ada@example.com');
    const first = await passwordSignIn(caller, 'ada@example.com', PASSWORD);
    expect(first.res.status).toBe(200);
    expect(first.cookie).toBe('');
    expect(first.body).toMatchObject({
      status: 'second_factor_required',
      methods: { totp: true, passkey: false, recoveryCode: true },
    });
    const code = await totpCode(secret, at(0));
    const done = await totpStep(caller, first.body.pendingToken ?? '', code);
    expect(done.res.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'signed_in', user: { id: userId } });
    expect(done.cookie).not.toBe('');
    const session = await fetch(`${gateway.url}/api/v1/auth/session`, {
      headers: { cookie: `authjs.session-token=${done.cookie}` },
    });
    expect(session.status).toBe(200);

    // The same code, on a new sign-in: refused exactly like a wrong one.
    const second = await passwordSignIn(caller, 'ada@example.com', PASSWORD);
    const replay = await totpStep(caller, second.body.pendingToken ?? '', code);
    const wrong = await totpStep(
      caller,
      second.body.pendingToken ?? '',
      code === '123456' ? '654321' : '123456',
    );
    expect(replay.res.status).toBe(401);
    const { requestId: _a, ...replayBody } = replay.body as unknown as Record<string, unknown>;
    const { requestId: _b, ...wrongBody } = wrong.body as unknown as Record<string, unknown>;
    expect(replayBody).toEqual(wrongBody);
    expect(await auditKinds(userId)).toEqual(
      expect.arrayContaining([
        'auth.login.second_factor_required',
        'auth.login.success',
        'auth.totp.replayed',
        'auth.totp.failed',
      ]),
    );
  });

  it('10 parallel sign-ins with one valid code get exactly 1 session', async () => {
    const { userId, secret } = await enrolled('race@example.com');
    const pending = await Promise.all(
      Array.from({ length: 10 }, () => passwordSignIn(caller, 'race@example.com', PASSWORD)),
    );
    const code = await totpCode(secret, at(0));
    const before = await db.pool.query('SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = $1', [
      userId,
    ]);
    const results = await Promise.all(
      pending.map(({ body }) => totpStep(caller, body.pendingToken ?? '', code)),
    );
    expect(results.map((r) => r.res.status).sort()).toEqual([200, ...Array<number>(9).fill(401)]);
    const after = await db.pool.query('SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = $1', [
      userId,
    ]);
    expect((after.rows[0] as { n: number }).n - (before.rows[0] as { n: number }).n).toBe(1);
  });

  it('accepts the codes of one step back and one ahead, not two', async () => {
    const { secret } = await enrolled('drift@example.com');
    clock.advance(5 * 30_000);
    for (const [steps, status] of [
      [-2, 401],
      [2, 401],
      [-1, 200],
      [1, 200],
    ] as const) {
      const { body } = await passwordSignIn(caller, 'drift@example.com', PASSWORD);
      const result = await totpStep(caller, body.pendingToken ?? '', await totpCode(secret, at(steps)));
      expect({ steps, status: result.res.status }).toEqual({ steps, status });
    }
  });

  it('drops a pending sign-in after 5 wrong codes, and after 5 minutes', async () => {
    const { secret } = await enrolled('patience@example.com');
    const { body } = await passwordSignIn(caller, 'patience@example.com', PASSWORD);
    const good = await totpCode(secret, at(0));
    const bad = good === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++)
      expect((await totpStep(caller, body.pendingToken ?? '', bad)).res.status).toBe(401);
    const late = await totpStep(caller, body.pendingToken ?? '', good);
    expect(late.body.code).toBe('auth.sign_in.expired');

    const next = await passwordSignIn(caller, 'patience@example.com', PASSWORD);
    clock.advance(5 * 60_000 + 1_000);
    const expired = await totpStep(caller, next.body.pendingToken ?? '', await totpCode(secret, at(0)));
    expect(expired.body.code).toBe('auth.sign_in.expired');
  });
});

describe('removal', () => {
  it('needs a recent second factor: a step-up with a code, then DELETE', async () => {
    const { userId, secret } = await enrolled('remove@example.com');
    const first = await passwordSignIn(caller, 'remove@example.com', PASSWORD);
    const done = await totpStep(caller, first.body.pendingToken ?? '', await totpCode(secret, at(0)));
    const headers = withCookie(caller, done.cookie);
    clock.advance(11 * 60_000); // the sign-in's factor is no longer recent
    const stale = await fetch(`${gateway.url}/api/v1/auth/totp`, { method: 'DELETE', headers });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { code: string }).code).toBe('auth.second_factor.not_fresh');
    const stepUp = await postJson(
      gateway.url,
      '/api/v1/auth/step-up',
      { totpCode: await totpCode(secret, at(0)) },
      headers,
    );
    expect(stepUp.status).toBe(200);
    const removed = await fetch(`${gateway.url}/api/v1/auth/totp`, { method: 'DELETE', headers });
    expect(removed.status).toBe(204);
    // Without a factor the password alone signs in again.
    expect((await passwordSignIn(caller, 'remove@example.com', PASSWORD)).body.status).toBe('signed_in');
    expect(await auditKinds(userId)).toEqual(expect.arrayContaining(['auth.step_up', 'auth.totp.removed']));
  });
});

describe('sign-in metrics', () => {
  it('counts each step of a password sign-in by outcome: failure, second factor required, failed, success', async () => {
    const { secret } = await enrolled('metrics@example.com');
    const signIns = () => metricSamples(gateway.metricsUrl, 'gatehouse_auth_sign_ins_total');
    const before = await signIns();
    // Every pair is served from boot, so a rate has its series before the first failure.
    expect(Object.keys(before)).toHaveLength(16);
    expect(before).toHaveProperty(['method="password",outcome="second_factor_failed"']);

    expect((await passwordSignIn(caller, 'metrics@example.com', 'not the password')).res.status).toBe(401);
    const first = await passwordSignIn(caller, 'metrics@example.com', PASSWORD);
    const code = await totpCode(secret, at(0));
    const wrongCode = code === '123456' ? '654321' : '123456';
    expect((await totpStep(caller, first.body.pendingToken ?? '', wrongCode)).res.status).toBe(401);
    expect((await totpStep(caller, first.body.pendingToken ?? '', code)).res.status).toBe(200);

    expect(samplesAdded(before, await signIns())).toEqual({
      'method="password",outcome="failure"': 1,
      'method="password",outcome="second_factor_required"': 1,
      'method="password",outcome="second_factor_failed"': 1,
      'method="password",outcome="success"': 1,
    });
  });
});
