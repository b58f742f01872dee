/**
 * What administrators do about other people's second factors (README, "Recovery"): the TOTP reset
 * `DELETE /admin/users/{id}/totp` (gated, admin only, TOTP only, never for directory-managed accounts, audited)
 * and the require-TOTP setting; and the recovery paths of local mode. Booted gateway in enforce mode, real
 * PostgreSQL, a manual clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../../../gateway/src/plugin-api.ts';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign, SIGNATURE_HEADER } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  seedEnrolledAccount,
  totpCode,
  totpStep,
  type Caller,
} from '../../../test/support/second-factor.ts';

const APP = 'http://localhost:3000';
const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
let db: TestDatabase;
let gateway: TestGateway;
let caller: Caller;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    clock,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP, AUTH_MODE: 'local' },
  });
  caller = { url: gateway.url, origin: APP };
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

/** An account with a confirmed TOTP enrollment; its id, secret and a signed-in session. */
const withTotp = (email: string, roles: string[] = []) =>
  seedEnrolledAccount(caller, db.pool, clock, { email, password: PASSWORD, roles });

/** A passkey row as registration stores it (the ceremony itself is tested in passkeys.test.ts). */
async function seedPasskey(userId: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO auth_passkeys (user_id, credential_id, public_key, sign_count, name, device_type, backed_up, created_at)
     VALUES ($1, $2, '\\x00', 0, 'Laptop', 'multiDevice', true, now())`,
    [userId, `cred-${userId}`],
  );
}

function resetTotp(userId: string, session: string): Promise<Response> {
  const path = `/admin/users/${userId}/totp`;
  return fetch(`${gateway.url}${path}`, {
    method: 'DELETE',
    headers: {
      [SIGNATURE_HEADER]: sign({ method: 'DELETE', url: path, at: clock.nowMs() / 1000 }),
      [SESSION_HEADER]: session,
    },
  });
}

let adminSession = '';
async function auditRows(kind: string) {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ actor: string; payload: Record<string, unknown> }>(
    'SELECT actor, payload FROM audit_log WHERE kind = $1 ORDER BY id',
    [kind],
  );
  return rows;
}

describe('DELETE /admin/users/{id}/totp', () => {
  beforeAll(async () => {
    const admin = await withTotp('admin@example.com', ['*']);
    const first = await passwordSignIn(caller, 'admin@example.com', PASSWORD);
    const done = await totpStep(
      caller,
      first.body.pendingToken ?? '',
      await totpCode(admin.secret, clock.now()),
    );
    clock.advance(30_000);
    adminSession = done.cookie;
  });

  it('removes the TOTP enrollment only: the passkeys stay, and the user signs in with one', async () => {
    const user = await withTotp('keeps-passkey@example.com');
    await seedPasskey(user.userId);
    expect((await resetTotp(user.userId, adminSession)).status).toBe(204);
    const { rows } = await db.pool.query(
      'SELECT (SELECT count(*)::int FROM auth_totp WHERE user_id = $1) AS totp, (SELECT count(*)::int FROM auth_passkeys WHERE user_id = $1) AS passkeys',
      [user.userId],
    );
    expect(rows[0]).toEqual({ totp: 0, passkeys: 1 });
    // README, "Recovery": TOTP lost with a passkey held → the passkey.
    const next = await passwordSignIn(caller, 'keeps-passkey@example.com', PASSWORD);
    expect(next.body).toMatchObject({
      status: 'second_factor_required',
      methods: { totp: false, passkey: true },
    });
    const audit = await auditRows('auth.totp.admin_reset');
    expect(audit.at(-1)).toMatchObject({ payload: { userId: user.userId } });
  });

  it('TOTP lost, no passkey: after the reset the user enrolls again at the next sign-in', async () => {
    const user = await withTotp('lost-phone@example.com');
    expect((await resetTotp(user.userId, adminSession)).status).toBe(204);
    const next = await passwordSignIn(caller, 'lost-phone@example.com', PASSWORD);
    expect(next.body).toMatchObject({ status: 'second_factor_enrollment_required', methods: { totp: true } });
    const pendingToken = next.body.pendingToken ?? '';
    const { secret } = await beginTotp(caller, { pendingToken });
    const done = await confirmTotp(caller, { pendingToken }, await totpCode(secret, clock.now()));
    expect(done.body.status).toBe('signed_in');
    clock.advance(30_000);
    // Enrolled again: the debt is paid, the next sign-in asks for the new factor.
    expect((await passwordSignIn(caller, 'lost-phone@example.com', PASSWORD)).body.status).toBe(
      'second_factor_required',
    );
  });

  it("an admin's only factor lost in local mode: another admin resets it", async () => {
    const other = await withTotp('other-admin@example.com', ['*']);
    expect((await resetTotp(other.userId, adminSession)).status).toBe(204);
    expect((await passwordSignIn(caller, 'other-admin@example.com', PASSWORD)).body.status).toBe(
      'second_factor_enrollment_required',
    );
  });

  it('refuses a directory-managed account, a user without TOTP, a non-admin caller and an unsigned request', async () => {
    const managed = await withTotp('managed@example.com');
    await db.pool.query('UPDATE auth_users SET directory_managed = true WHERE id = $1', [managed.userId]);
    const refused = await resetTotp(managed.userId, adminSession);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { code: string }).code).toBe('auth.totp.directory_managed');

    const plain = await seedLocalAccount(db.pool, { email: 'plain@example.com', password: PASSWORD });
    const none = await resetTotp(plain, adminSession);
    expect(none.status).toBe(404);
    expect(((await none.json()) as { code: string }).code).toBe('auth.totp.not_enrolled');

    const staff = await passwordSignIn(caller, 'plain@example.com', PASSWORD);
    const forbidden = await resetTotp(managed.userId, staff.cookie);
    expect(forbidden.status).toBe(403);
    const unsigned = await fetch(`${gateway.url}/admin/users/${managed.userId}/totp`, { method: 'DELETE' });
    expect(unsigned.status).toBe(401);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM auth_totp WHERE user_id = $1', [
      managed.userId,
    ]);
    expect(rows[0]).toEqual({ n: 1 });
  });
});

describe('the require-TOTP setting', () => {
  it('makes every password sign-in enroll a second factor first', async () => {
    await seedLocalAccount(db.pool, { email: 'newbie@example.com', password: PASSWORD });
    expect((await passwordSignIn(caller, 'newbie@example.com', PASSWORD)).body.status).toBe('signed_in');
    await db.pool.query('UPDATE auth_settings SET require_totp = true');
    try {
      const next = await passwordSignIn(caller, 'newbie@example.com', PASSWORD);
      expect(next.body.status).toBe('second_factor_enrollment_required');
      expect(next.cookie).toBe('');
    } finally {
      await db.pool.query('UPDATE auth_settings SET require_totp = false');
    }
  });
});

describe('passkeys turned off', () => {
  it('an account whose only factor is a passkey must enroll a usable one instead of being locked out', async () => {
    // An http origin that is not localhost: the relying party does not resolve, so passkeys are off.
    const off = await startTestGateway({
      databaseUrl: db.url,
      clock,
      env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: 'http://127.0.0.1:3000' },
    });
    try {
      const userId = await seedLocalAccount(db.pool, {
        email: 'passkey-only@example.com',
        password: PASSWORD,
      });
      await seedPasskey(userId);
      const on = await passwordSignIn(caller, 'passkey-only@example.com', PASSWORD);
      expect(on.body).toMatchObject({ status: 'second_factor_required', methods: { passkey: true } });
      const next = await passwordSignIn(
        { url: off.url, origin: 'http://127.0.0.1:3000' },
        'passkey-only@example.com',
        PASSWORD,
      );
      expect(next.body).toMatchObject({
        status: 'second_factor_enrollment_required',
        methods: { totp: true, passkey: false },
      });
    } finally {
      await off.close();
    }
  });
});
