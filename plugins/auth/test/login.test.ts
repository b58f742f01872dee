/**
 * Password sign-in and the web session (README, "Routes" and "Web sessions"), against the real gateway and
 * Postgres. That every failure looks and costs the same is in login.security.test.ts.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { sessionCookieOf } from '../../../test/support/http.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { startTestIdp } from '../../../test/support/oidc-idp.ts';

const APP = 'http://localhost:3000';
let db: TestDatabase;
let gateway: TestGateway;

async function seed(email: string, password: string, roles: string[] = []): Promise<string> {
  const user = await userStore.insertLocal(
    db.pool,
    canonical(email),
    await argon2.hash(password, ARGON2_PARAMS),
  );
  for (const role of roles) await userStore.grantRole(db.pool, user?.id ?? '', role, 'test');
  return user?.id ?? '';
}

const login = (gw: TestGateway, email: string, password: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email, password }),
  });

const cookieOf = sessionCookieOf;

beforeAll(async () => {
  db = await createTestDatabase();
  await seed('ada@example.com', 'violet umbrella 42');
  await seed('root@example.com', 'root password 123', ['*']);
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

describe('POST /auth/login', () => {
  it('signs in: an Auth.js session cookie (HttpOnly, SameSite=Lax, Path=/; not Secure on http://localhost)', async () => {
    const res = await login(gateway, 'ADA@example.com', 'violet umbrella 42');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { email: 'ada@example.com', roles: [] } });
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(
      /^authjs\.session-token=[^;]+; Max-Age=43200; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
    );
    // The cookie's value passes gate layer 2 as a forwarded session, with its server-side sid.
    const path = '/api/v1/gate/identity';
    const viaGate = await fetch(`${gateway.url}${path}`, {
      headers: {
        'x-internal-signature': sign({ method: 'GET', url: path }),
        'x-forwarded-session': cookieOf(res),
      },
    });
    expect(viaGate.status).toBe(200);
    const { identity } = (await viaGate.json()) as { identity: { sid: string; email: string } };
    expect(identity.email).toBe('ada@example.com');
    const { rows } = await db.pool.query('SELECT 1 FROM auth_sessions WHERE id = $1 AND revoked_at IS NULL', [
      identity.sid,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('validates the body', async () => {
    const res = await fetch(`${gateway.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"x"}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('validation.failed');
  });
});

describe('the web session', () => {
  it('GET /api/v1/auth/session answers for the cookie; logout checks Origin, revokes, clears the cookie', async () => {
    const token = cookieOf(await login(gateway, 'ada@example.com', 'violet umbrella 42'));
    const cookie = { cookie: `authjs.session-token=${token}` };
    const me = await fetch(`${gateway.url}/api/v1/auth/session`, { headers: cookie });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ identity: { email: 'ada@example.com' } });

    const forged = await fetch(`${gateway.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { ...cookie, origin: 'https://evil.example' },
    });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { code: string }).code).toBe('auth.origin.mismatch');

    const out = await fetch(`${gateway.url}/api/v1/auth/logout`, {
      method: 'POST',
      headers: { ...cookie, origin: APP },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^authjs\.session-token=; Path=\/; Expires=Thu, 01 Jan 1970/,
    );
    await expect
      .poll(async () => (await fetch(`${gateway.url}/api/v1/auth/session`, { headers: cookie })).status, {
        interval: 20,
      })
      .toBe(401);
  });
});

describe('oidc mode', () => {
  it('only wildcard admins may sign in with a password (break-glass); others get the generic error', async () => {
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
      const agent = await login(oidc, 'ada@example.com', 'violet umbrella 42');
      expect(agent.status).toBe(401);
      expect(((await agent.json()) as { code: string }).code).toBe('auth.invalid_credentials');
      expect((await login(oidc, 'root@example.com', 'root password 123')).status).toBe(200);
    } finally {
      await oidc.close();
      await idp.close();
    }
  });
});
