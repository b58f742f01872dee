/** Registration and password change (README, "Routes" and "Passwords") through the real gateway. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode, sessionCookieOf } from '../../../test/support/http.ts';
import { startTestIdp } from '../../../test/support/oidc-idp.ts';

const APP = 'http://localhost:3000';
let db: TestDatabase;
let gateway: TestGateway;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(gateway.url, path, body, headers);
const cookieOf = sessionCookieOf;
const code = problemCode;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      APP_BASE_URL: APP,
      // 20 parallel registrations queue for the hasher; on a busy machine the default 2 s wait can end in a 503.
      LOGIN_HASH_WAIT_MS: '60000',
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('POST /auth/register', () => {
  it('is off until an admin turns the toggle on', async () => {
    const res = await post('/auth/register', { email: 'new@example.com', password: 'violet umbrella 42' });
    expect(res.status).toBe(403);
    expect(await code(res)).toBe('auth.register.disabled');
  });

  it('with the toggle on: creates the account and signs in; refuses policy violations and a taken email', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const weak = await post('/auth/register', { email: 'grace@example.com', password: 'password' });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toMatchObject({
      code: 'auth.password.too_short',
      violations: ['auth.password.too_short', 'auth.password.common'],
    });

    const ok = await post('/auth/register', { email: 'grace@example.com', password: 'violet umbrella 42' });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ user: { email: 'grace@example.com', roles: [] } });
    expect(cookieOf(ok)).not.toBe('');

    const again = await post('/auth/register', {
      email: 'GRACE@example.com',
      password: 'another violet umbrella',
    });
    expect(again.status).toBe(409);
    expect(await code(again)).toBe('auth.register.email_taken');
  });

  it('20 parallel registrations of one email: exactly one account', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post('/auth/register', {
          email: i % 2 ? 'Twin@Example.com' : 'twin@example.com',
          password: `parallel umbrella ${i}x`,
        }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
    const { rows } = await db.pool.query(
      "SELECT count(*)::int AS n FROM auth_users WHERE lower(email) = 'twin@example.com'",
    );
    expect(rows[0]).toEqual({ n: 1 });
  });

  it('in oidc mode answers 403 auth.register.disabled regardless of the toggle', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const idp = await startTestIdp();
    const oidc = await startTestGateway({
      databaseUrl: db.url,
      env: {
        GATEWAY_PLUGINS: 'auth',
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: 'gatehouse',
        APP_BASE_URL: 'http://127.0.0.1:3000',
        AUTH_SECRET: 'oidc-mode-secret-0123456789',
      },
    });
    try {
      const res = await fetch(`${oidc.url}/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'sso@example.com', password: 'violet umbrella 42' }),
      });
      expect(res.status).toBe(403);
      expect(await code(res)).toBe('auth.register.disabled');
    } finally {
      await oidc.close();
      await idp.close();
    }
  });
});

describe('POST /api/v1/auth/password', () => {
  it('needs the current password, keeps this session and revokes the others at once', async () => {
    await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
    const current = cookieOf(
      await post('/auth/register', { email: 'lin@example.com', password: 'first violet umbrella' }),
    );
    const other = cookieOf(
      await post('/auth/login', { email: 'lin@example.com', password: 'first violet umbrella' }),
    );
    const atGate = async (token: string) => {
      const path = '/api/v1/gate/identity';
      return (
        await fetch(`${gateway.url}${path}`, {
          headers: {
            'x-internal-signature': sign({ method: 'GET', url: path }),
            'x-forwarded-session': token,
          },
        })
      ).status;
    };
    expect(await atGate(other)).toBe(200);

    const headers = { cookie: `authjs.session-token=${current}`, origin: APP };
    const wrong = await post(
      '/api/v1/auth/password',
      { currentPassword: 'not it', newPassword: 'second violet umbrella' },
      headers,
    );
    expect(wrong.status).toBe(403);
    expect(await code(wrong)).toBe('auth.password.current_wrong');

    const changed = await post(
      '/api/v1/auth/password',
      { currentPassword: 'first violet umbrella', newPassword: 'second violet umbrella' },
      headers,
    );
    expect(changed.status).toBe(204);
    await expect.poll(() => atGate(other), { interval: 20 }).toBe(401);
    expect(await atGate(current)).toBe(200);

    expect(
      (await post('/auth/login', { email: 'lin@example.com', password: 'first violet umbrella' })).status,
    ).toBe(401);
    expect(
      (await post('/auth/login', { email: 'lin@example.com', password: 'second violet umbrella' })).status,
    ).toBe(200);
    await gateway.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT kind FROM audit_log WHERE kind IN ('auth.password.changed', 'auth.session.revoked') ORDER BY kind",
    );
    // Both written fire-and-forget, so in either order.
    expect(rows.map((row: { kind: string }) => row.kind)).toEqual([
      'auth.password.changed',
      'auth.session.revoked',
    ]);
  });
});
