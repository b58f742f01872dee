/**
 * Which account a single sign-on lands in (README, "Linking accounts", "Bootstrap admin"), against a real
 * OpenID Provider on loopback: an existing account is linked only by a verified email, a linked identity is found
 * by (issuer, subject) even after its email changes, the bootstrap admin is granted once, and what ends an
 * account's sign-ins ends its device tokens too. Also: discovery holds no secret, and the provider's key rotation.
 */
import argon2 from 'argon2';
import type { ClientMetadata } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { sessionStore } from '../src/store/session-store.ts';
import { userStore } from '../src/store/user-store.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { createSessionIssuer, systemClock } from '../../../test/support/core.ts';
import { AUTH_SECRET, gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode, sessionCookieOf } from '../../../test/support/http.ts';
import {
  appAuthorization,
  DEFAULT_CLIENT,
  startTestIdp,
  type TestIdp,
} from '../../../test/support/oidc-idp.ts';

const APP = 'http://127.0.0.1:3000';
const SECRET = 'a-client-secret-that-must-not-leak';
let db: TestDatabase;
let idp: TestIdp;
let gateway: TestGateway;

const env = (extra: Record<string, string> = {}) => ({
  ...gateEnv('enforce'),
  GATEWAY_PLUGINS: 'auth',
  APP_BASE_URL: APP,
  AUTH_MODE: 'local+oidc',
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: 'gatehouse',
  OIDC_CLIENT_SECRET: SECRET,
  OIDC_APP_SCHEMES: 'com.example.app',
  ...extra,
});
const client: ClientMetadata = {
  ...DEFAULT_CLIENT,
  client_secret: SECRET,
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: [`${APP}/auth/callback`, 'com.example.app://auth/callback'],
};

/** A whole browser sign-in: the exchange's answer. */
async function signIn(subject: string): Promise<Response> {
  const start = await fetch(`${gateway.url}/auth/oidc/start`, { redirect: 'manual' });
  const flowCookie = /^gatehouse\.oidc-flow=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const landed = await idp.signIn(start.headers.get('location') as string, subject);
  if (!('callback' in landed)) throw new Error(landed.error);
  const query = landed.callback.searchParams;
  return postJson(
    gateway.url,
    '/api/v1/auth/oidc/exchange',
    { code: query.get('code'), state: query.get('state'), iss: query.get('iss') },
    { cookie: `gatehouse.oidc-flow=${flowCookie}` },
  );
}

async function userOf(res: Response): Promise<{ id: string; email: string; roles: string[] }> {
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { user: { id: string; email: string; roles: string[] } }).user;
}

async function auditRows(kind: string, actor: string): Promise<unknown[]> {
  const { rows } = await db.pool.query<{ payload: unknown }>(
    'SELECT payload FROM audit_log WHERE kind = $1 AND actor = $2',
    [kind, actor],
  );
  return rows;
}

beforeAll(async () => {
  db = await createTestDatabase();
  idp = await startTestIdp({ clients: [client] });
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: env({ BOOTSTRAP_ADMIN_EMAIL: 'Boss@Example.COM' }),
  });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
  await db?.drop();
});

describe('linking to an existing account', () => {
  it('an unverified email matching an account is refused and audited; verified, it is linked', async () => {
    const existing = await userStore.insertLocal(
      db.pool,
      canonical('grace@example.com'),
      await argon2.hash('a long local password', ARGON2_PARAMS),
    );
    idp.accounts.set('grace-sub', { email: 'Grace@example.com', email_verified: false });
    const refused = await signIn('grace-sub');
    expect([refused.status, await problemCode(refused)]).toEqual([403, 'auth.oidc.email_unverified']);
    expect(sessionCookieOf(refused)).toBe('');
    expect(await auditRows('auth.oidc.refused', existing?.id as string)).toEqual([
      { payload: { reason: 'email_unverified', issuer: idp.issuer } },
    ]);

    idp.accounts.set('grace-sub', { email: 'grace@example.com', email_verified: true });
    const linked = await userOf(await signIn('grace-sub'));
    expect(linked.id).toBe(existing?.id);
    expect(await auditRows('auth.oidc.linked', linked.id)).toHaveLength(1);
  });

  it('a linked identity is found by (issuer, subject) after its email changed at the provider', async () => {
    idp.accounts.set('linus-sub', { email: 'linus@example.com', email_verified: true, name: 'Linus' });
    const first = await userOf(await signIn('linus-sub'));
    idp.accounts.set('linus-sub', { email: 'linus.t@example.org', email_verified: true, name: 'Linus T.' });
    const second = await userOf(await signIn('linus-sub'));
    expect(second.id).toBe(first.id);
    expect(second.email).toBe('linus@example.com'); // the answer precedes the profile refresh
    const row = await userStore.findById(db.pool, first.id);
    expect(row?.email).toBe('linus.t@example.org');

    // Another subject claiming the old email, verified: a new account, never Linus's.
    idp.accounts.set('mallory-sub', { email: 'linus@example.com', email_verified: true });
    const other = await userOf(await signIn('mallory-sub'));
    expect(other.id).not.toBe(first.id);
  });

  it('an account already linked to another subject of this issuer is not linked again', async () => {
    idp.accounts.set('hopper-sub', { email: 'hopper@example.com', email_verified: true });
    await userOf(await signIn('hopper-sub'));
    idp.accounts.set('hopper-2-sub', { email: 'hopper@example.com', email_verified: true });
    const conflict = await signIn('hopper-2-sub');
    expect([conflict.status, await problemCode(conflict)]).toEqual([409, 'auth.oidc.identity_conflict']);
  });

  it('no email in the ID token: refused, no account made', async () => {
    idp.accounts.set('nomail-sub', {});
    const res = await signIn('nomail-sub');
    expect([res.status, await problemCode(res)]).toEqual([403, 'auth.oidc.email_missing']);
  });
});

describe('the bootstrap admin', () => {
  it('is granted once and audited once, only for a verified email, and kept after the variable is removed', async () => {
    idp.accounts.set('boss-sub', { email: 'boss@example.com', email_verified: false });
    const unverified = await userOf(await signIn('boss-sub'));
    expect(unverified.roles).toEqual([]);

    idp.accounts.set('boss-sub', { email: 'boss@example.com', email_verified: true });
    const boss = await userOf(await signIn('boss-sub'));
    expect(boss.roles).toEqual(['*']);
    expect((await userOf(await signIn('boss-sub'))).roles).toEqual(['*']);
    expect(await auditRows('auth.bootstrap_admin', boss.id)).toHaveLength(1);

    await gateway.close();
    gateway = await startTestGateway({ databaseUrl: db.url, env: env() });
    expect((await userOf(await signIn('boss-sub'))).roles).toEqual(['*']);
    expect(await auditRows('auth.bootstrap_admin', boss.id)).toHaveLength(1);
  });
});

describe('what ends an account’s sign-ins ends its device tokens', () => {
  async function devicePair(subject: string) {
    const res = await postJson(gateway.url, '/api/v1/auth/oidc/exchange', {
      ...(await appAuthorization(idp, subject)),
      device: { id: `device-${subject}` },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return (await res.json()) as { accessToken: string; refreshToken: string; user: { id: string } };
  }
  const gated = (token: string) =>
    fetch(`${gateway.url}/api/v1/gate/identity`, {
      headers: {
        'x-internal-signature': sign({ method: 'GET', url: '/api/v1/gate/identity' }),
        'x-forwarded-session': token,
      },
    });

  it('disabling the account: the access token is refused at once and the refresh token is dead', async () => {
    idp.accounts.set('ada-sub', { email: 'ada@example.com', email_verified: true });
    const pair = await devicePair('ada-sub');
    expect((await gated(pair.accessToken)).status).toBe(200);
    const admin = await userStore.insertLocal(
      db.pool,
      canonical('root@example.com'),
      await argon2.hash('root password 123', ARGON2_PARAMS),
    );
    await userStore.grantRole(db.pool, admin?.id as string, '*', 'test');
    const disable = await fetch(`${gateway.url}/api/v1/admin/users/${pair.user.id}/disable`, {
      method: 'POST',
      headers: {
        'x-internal-signature': sign({ method: 'POST', url: `/api/v1/admin/users/${pair.user.id}/disable` }),
        'x-forwarded-session': await adminToken(admin?.id as string),
      },
    });
    expect(disable.status, await disable.clone().text()).toBe(200);
    // Every replica, this one too, refuses it once the revocation's notification arrives.
    await expect
      .poll(async () => (await gated(pair.accessToken)).status, { interval: 20, timeout: 10_000 })
      .toBe(401);
    const refresh = await postJson(gateway.url, '/api/v1/auth/token/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect([refresh.status, await problemCode(refresh)]).toEqual([401, 'auth.refresh.invalid']);
  });

  it('a password change keeps the session that made it and ends the device sign-ins', async () => {
    // Grace has a local password and, since the first suite, a linked identity.
    idp.accounts.set('grace-sub', { email: 'grace@example.com', email_verified: true });
    const pair = await devicePair('grace-sub');
    const login = await postJson(gateway.url, '/auth/login', {
      email: 'grace@example.com',
      password: 'a long local password',
    });
    expect(login.status).toBe(200);
    const change = await postJson(
      gateway.url,
      '/api/v1/auth/password',
      { currentPassword: 'a long local password', newPassword: 'another long local password' },
      { cookie: `authjs.session-token=${sessionCookieOf(login)}`, origin: APP },
    );
    expect(change.status, await change.clone().text()).toBe(204);
    expect((await gated(sessionCookieOf(login))).status).toBe(200);
    // Every replica, this one too, refuses it once the revocation's notification arrives.
    await expect
      .poll(async () => (await gated(pair.accessToken)).status, { interval: 20, timeout: 10_000 })
      .toBe(401);
    const refresh = await postJson(gateway.url, '/api/v1/auth/token/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect(refresh.status).toBe(401);
  });

  it('a user lists their device sign-ins and ends one', async () => {
    idp.accounts.set('kay-sub', { email: 'kay@example.com', email_verified: true });
    const pair = await devicePair('kay-sub');
    const listed = await fetch(`${gateway.url}/api/v1/auth/devices`, {
      headers: { authorization: `Bearer ${pair.accessToken}` },
    });
    const { devices } = (await listed.json()) as { devices: Array<{ id: string; current: boolean }> };
    expect(devices).toHaveLength(1);
    expect(devices[0]?.current).toBe(true);
    const ended = await fetch(`${gateway.url}/api/v1/auth/devices/${devices[0]?.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${pair.accessToken}` },
    });
    expect(ended.status).toBe(204);
    // Every replica, this one too, refuses it once the revocation's notification arrives.
    await expect
      .poll(async () => (await gated(pair.accessToken)).status, { interval: 20, timeout: 10_000 })
      .toBe(401);
  });
});

describe('discovery', () => {
  it('offers the modes, the authorize endpoint and the client id, never the secret; 304 on its ETag', async () => {
    const res = await fetch(`${gateway.url}/api/v1/auth/methods`);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      modes: ['local', 'oidc'],
      password: true,
      oidc: { issuer: idp.issuer, authorizationEndpoint: `${idp.issuer}/auth`, clientId: 'gatehouse' },
    });
    expect(text).not.toContain(SECRET);
    const again = await fetch(`${gateway.url}/auth/methods`, {
      headers: { 'if-none-match': res.headers.get('etag') as string },
    });
    expect(again.status).toBe(304);
  });
});

describe('the provider’s signing keys', () => {
  it('rotated (the provider restarted with a new key): the next sign-in fetches the new key and succeeds', async () => {
    idp.accounts.set('rota-sub', { email: 'rota@example.com', email_verified: true });
    await userOf(await signIn('rota-sub'));
    const port = Number(new URL(idp.issuer).port);
    const accounts = idp.accounts;
    await idp.close();
    idp = await startTestIdp({ clients: [client], port });
    for (const [subject, claims] of accounts) idp.accounts.set(subject, claims);
    await userOf(await signIn('rota-sub'));
  });
});

/** A session token for an admin account, minted as the gateway's own sign-in would. */
async function adminToken(userId: string): Promise<string> {
  const session = await sessionStore.create(db.pool, {
    userId,
    ttlSeconds: 600,
    userAgent: null,
    ip: null,
    now: new Date(),
  });
  const issuer = await createSessionIssuer({
    secrets: [AUTH_SECRET],
    cookieName: 'authjs.session-token',
    clock: systemClock,
  });
  return issuer.issue({ sub: userId, email: 'root@example.com', roles: ['*'], sid: session.id }, 600);
}
