/**
 * Break-glass admins in oidc mode (README, "Break-glass"): a local password only for wildcard admins, always with
 * a second factor, audited; everyone else answered like a wrong password; AUTH_BREAK_GLASS=false closes every
 * password path. And the recovery paths that run in oidc mode (README, "Recovery"). Booted gateways, real
 * PostgreSQL, the loopback test identity provider (which is stopped to show the provider being down).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLocalAccount } from '../../../test/support/accounts.ts';
import { createManualClock } from '../../../test/support/core.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, mintSession, sign, SIGNATURE_HEADER } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson } from '../../../test/support/http.ts';
import { startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';
import {
  beginTotp,
  confirmTotp,
  passwordSignIn,
  totpCode,
  totpStep,
  type Caller,
} from '../../../test/support/second-factor.ts';
import { SESSION_HEADER } from '../../../gateway/src/plugin-api.ts';

const APP = 'http://127.0.0.1:3000';
const PASSWORD = 'violet umbrella 42';
const clock = createManualClock(Math.floor(Date.now() / 30_000) * 30_000 + 10_000);
let db: TestDatabase;
let idp: TestIdp;
const gateways: TestGateway[] = [];
const ids: Record<string, string> = {};

const oidcEnv = (extra: Record<string, string> = {}) => ({
  ...gateEnv('enforce'),
  GATEWAY_PLUGINS: 'auth',
  APP_BASE_URL: APP,
  AUTH_MODE: 'oidc',
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: 'gatehouse',
  OIDC_CLIENT_SECRET: 'gatehouse-client-secret',
  ...extra,
});

async function boot(env: Record<string, string>): Promise<Caller> {
  const gateway = await startTestGateway({ databaseUrl: db.url, clock, env });
  gateways.push(gateway);
  return { url: gateway.url, origin: APP };
}

async function audited(kind: string, actor: string): Promise<Array<Record<string, unknown>>> {
  for (const gateway of gateways) await gateway.audit.flush().catch(() => {});
  const { rows } = await db.pool.query<{ payload: Record<string, unknown> }>(
    'SELECT payload FROM audit_log WHERE kind = $1 AND actor = $2 ORDER BY id',
    [kind, actor],
  );
  return rows.map((row) => row.payload);
}

/** Enrolls TOTP during a break-glass sign-in that must enroll; the secret and the session cookie. */
async function enrollAtSignIn(caller: Caller, email: string): Promise<{ secret: string; cookie: string }> {
  const first = await passwordSignIn(caller, email, PASSWORD);
  expect(first.body.status).toBe('second_factor_enrollment_required');
  const pendingToken = first.body.pendingToken ?? '';
  const { secret } = await beginTotp(caller, { pendingToken });
  const done = await confirmTotp(caller, { pendingToken }, await totpCode(secret, clock.now()));
  expect(done.body.status).toBe('signed_in');
  clock.advance(30_000);
  return { secret, cookie: done.cookie };
}

/** The auth plugin's warnings in the gated full health report. */
async function healthWarnings(caller: Caller): Promise<string[] | undefined> {
  const res = await fetch(`${caller.url}/api/v1/health/full`, {
    headers: {
      [SIGNATURE_HEADER]: sign({ method: 'GET', url: '/api/v1/health/full', at: clock.nowMs() / 1000 }),
      [SESSION_HEADER]: await mintSession({ claims: { sid: undefined } }),
    },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { checks: { plugins: { auth: { warnings?: string[] } } } };
  return body.checks.plugins.auth.warnings;
}

/** A signed dashboard request carrying an admin's session (gate layers 1 and 2). */
function adminDelete(caller: Caller, path: string, session: string): Promise<Response> {
  return fetch(`${caller.url}${path}`, {
    method: 'DELETE',
    headers: {
      [SIGNATURE_HEADER]: sign({ method: 'DELETE', url: path, at: clock.nowMs() / 1000 }),
      [SESSION_HEADER]: session,
    },
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  idp = await startTestIdp();
  ids.admin = await seedLocalAccount(db.pool, {
    email: 'root@example.com',
    password: PASSWORD,
    roles: ['*'],
  });
  ids.second = await seedLocalAccount(db.pool, {
    email: 'deputy@example.com',
    password: PASSWORD,
    roles: ['*'],
  });
  ids.staff = await seedLocalAccount(db.pool, { email: 'staff@example.com', password: PASSWORD });
  ids.demo = await seedLocalAccount(db.pool, {
    email: 'demo@example.com',
    password: 'demo@example.com',
    roles: ['*'],
  });
}, 120_000);
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await idp?.close();
  await db?.drop();
});

describe('oidc mode with AUTH_BREAK_GLASS=true', () => {
  let caller: Caller;
  let secret = '';
  beforeAll(async () => {
    caller = await boot(oidcEnv());
  });

  it('warns in /api/v1/health/full while no break-glass admin has a factor', async () => {
    expect(await healthWarnings(caller)).toEqual([expect.stringContaining('no break-glass admin')]);
  });

  it('a wildcard admin must enroll a factor before any session, then signs in with password + TOTP, audited', async () => {
    ({ secret } = await enrollAtSignIn(caller, 'root@example.com'));
    const again = await passwordSignIn(caller, 'root@example.com', PASSWORD);
    expect(again.body).toMatchObject({ status: 'second_factor_required', methods: { totp: true } });
    expect(again.cookie).toBe('');
    const done = await totpStep(caller, again.body.pendingToken ?? '', await totpCode(secret, clock.now()));
    expect(done.body.status).toBe('signed_in');
    expect(await audited('auth.login.break_glass', ids.admin ?? '')).toEqual([
      { method: 'password', factor: 'totp' },
      { method: 'password', factor: 'totp' },
    ]);
    clock.advance(30_000);
    expect(await healthWarnings(caller)).toBeUndefined();
  });

  it('answers a non-admin with the right password, and the demo account, exactly like a wrong password', async () => {
    const answers = [];
    for (const [email, password] of [
      ['staff@example.com', 'not the password'],
      ['staff@example.com', PASSWORD],
      ['demo@example.com', 'demo@example.com'],
    ] as const) {
      const { res, body, cookie } = await passwordSignIn(caller, email, password);
      expect(res.status).toBe(401);
      expect(cookie).toBe('');
      const { requestId: _id, ...rest } = body as unknown as Record<string, unknown>;
      answers.push(rest);
    }
    expect(answers[0]).toMatchObject({ code: 'auth.invalid_credentials' });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it('still signs the admin in while the identity provider is down (password + TOTP)', async () => {
    await idp.close();
    const first = await passwordSignIn(caller, 'root@example.com', PASSWORD);
    const done = await totpStep(caller, first.body.pendingToken ?? '', await totpCode(secret, clock.now()));
    clock.advance(30_000);
    idp = await startTestIdp({ port: Number(new URL(idp.issuer).port) });
    expect(done.body.status).toBe('signed_in');
  });

  it('recovery: another admin resets the lost TOTP over the gated API; the admin enrolls again at the next sign-in', async () => {
    const deputy = await enrollAtSignIn(caller, 'deputy@example.com');
    const res = await adminDelete(caller, `/admin/users/${ids.admin}/totp`, deputy.cookie);
    expect(res.status).toBe(204);
    expect(await audited('auth.totp.admin_reset', ids.second ?? '')).toEqual([{ userId: ids.admin }]);
    ({ secret } = await enrollAtSignIn(caller, 'root@example.com'));
  });
});

describe('recovery when no other admin remains: AUTH_MODE changed to local and a restart', () => {
  it('a new local admin made on the server signs in with the password alone and resets the lost factor', async () => {
    // The operator's runbook (README, "Recovery"): restart in local mode, where a password needs no factor unless
    // the account has one, create an admin on the server, reset the lost factor, restart in oidc mode.
    const local = await boot({
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      APP_BASE_URL: APP,
      AUTH_MODE: 'local',
    });
    const rescuerId = await seedLocalAccount(db.pool, {
      email: 'rescue@example.com',
      password: PASSWORD,
      roles: ['*'],
    });
    const rescuer = await passwordSignIn(local, 'rescue@example.com', PASSWORD);
    expect(rescuer.body.status).toBe('signed_in');
    expect((await adminDelete(local, `/admin/users/${ids.admin}/totp`, rescuer.cookie)).status).toBe(204);
    expect(await audited('auth.totp.admin_reset', rescuerId)).toEqual([{ userId: ids.admin }]);
    const oidc = await boot(oidcEnv());
    await enrollAtSignIn(oidc, 'root@example.com');
  });
});

describe('AUTH_BREAK_GLASS=false', () => {
  it('refuses every password path, the break-glass admin included', async () => {
    const caller = await boot(oidcEnv({ AUTH_BREAK_GLASS: 'false' }));
    const login = await passwordSignIn(caller, 'root@example.com', PASSWORD);
    expect(login.res.status).toBe(401);
    expect((login.body as unknown as { code: string }).code).toBe('auth.invalid_credentials');
    const register = await postJson(caller.url, '/auth/register', {
      email: 'new@example.com',
      password: 'a long new password 9',
    });
    expect(register.status).toBe(403);
    const methods = (await (await fetch(`${caller.url}/api/v1/auth/methods`)).json()) as Record<
      string,
      unknown
    >;
    expect(methods).toMatchObject({ password: false, breakGlass: false });
  });
});
