/**
 * The mode table (README, "Modes"): for each AUTH_MODE, password login, registration and password change
 * behave as the table says.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { sessionStore } from '../src/store/session-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createSessionIssuer, systemClock } from '../../../test/support/core.ts';
import { startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';

const APP = 'http://localhost:3000';
let idp: TestIdp;
const oidcSettings = () => ({ OIDC_ISSUER: idp.issuer, OIDC_CLIENT_ID: 'gatehouse' });
let db: TestDatabase;

beforeAll(async () => {
  idp = await startTestIdp();
  db = await createTestDatabase();
  await db.pool.query('UPDATE auth_settings SET registration_enabled = true');
  for (const [email, roles] of [
    ['user@example.com', []],
    ['admin@example.com', ['*']],
  ] as const) {
    const user = await userStore.insertLocal(
      db.pool,
      canonical(email),
      await argon2.hash('violet umbrella 42', ARGON2_PARAMS),
    );
    for (const role of roles) await userStore.grantRole(db.pool, user?.id ?? '', role, 'test');
  }
});
afterAll(async () => {
  await idp?.close();
  await db?.drop();
});

async function ssoSession(email: string): Promise<string> {
  const user = await userStore.findByEmail(db.pool, canonical(email));
  const session = await sessionStore.create(db.pool, {
    userId: user?.id ?? '',
    ttlSeconds: 600,
    userAgent: null,
    ip: null,
    now: new Date(),
  });
  const issuer = await createSessionIssuer({
    secrets: ['test-auth-secret-0123456789abcdef'],
    cookieName: 'authjs.session-token',
    clock: systemClock,
  });
  return issuer.issue({ sub: user?.id ?? '', email, roles: user?.roles ?? [], sid: session.id }, 600);
}

async function behaviour(gateway: TestGateway, email: string) {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const login = await post('/auth/login', { email, password: 'violet umbrella 42' });
  // Without a password login (oidc mode), the account would hold a single sign-on session: mint one.
  const cookie =
    /^authjs\.session-token=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ??
    (await ssoSession(email));
  const register = await post('/auth/register', {
    email: `new-${Math.random().toString(36).slice(2)}@example.com`,
    password: 'a fresh violet umbrella',
  });
  const change = cookie
    ? (
        await post(
          '/api/v1/auth/password',
          { currentPassword: 'violet umbrella 42', newPassword: 'violet umbrella 42 again' },
          { cookie: `authjs.session-token=${cookie}`, origin: APP },
        )
      ).status
    : null;
  if (change === 204) {
    // Put the password back for the next mode.
    await post(
      '/api/v1/auth/password',
      { currentPassword: 'violet umbrella 42 again', newPassword: 'violet umbrella 42' },
      { cookie: `authjs.session-token=${cookie}`, origin: APP },
    );
  }
  return { login: login.status, register: register.status, change };
}

describe.each([
  // mode, what a regular account gets, what a wildcard admin gets
  ['local', { login: 200, register: 201, change: 204 }, { login: 200, register: 201, change: 204 }],
  ['local+oidc', { login: 200, register: 201, change: 204 }, { login: 200, register: 201, change: 204 }],
  // oidc: password endpoints only for break-glass admins; registration off regardless of the toggle.
  ['oidc', { login: 401, register: 403, change: 403 }, { login: 200, register: 403, change: 204 }],
] as const)('AUTH_MODE=%s', (mode, regular, admin) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      databaseUrl: db.url,
      env: { GATEWAY_PLUGINS: 'auth', AUTH_MODE: mode, APP_BASE_URL: APP, ...oidcSettings() },
    });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('a regular account', async () => {
    expect(await behaviour(gateway, 'user@example.com')).toEqual(regular);
  });

  it('a wildcard admin (break-glass in oidc mode)', async () => {
    expect(await behaviour(gateway, 'admin@example.com')).toEqual(admin);
  });
});
