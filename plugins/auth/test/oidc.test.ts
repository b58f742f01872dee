/**
 * Single sign-on against a real OpenID Provider on loopback (README, "Single sign-on", "Linking accounts",
 * "Bootstrap admin"): the browser flow over HTTP as a browser makes it, the exchange's refusals, linking by
 * (issuer, subject) and by verified email only, and the bootstrap admin.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userStore } from '../src/store/user-store.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { metricSamples, samplesAdded } from '../../../test/support/metric-samples.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode, sessionCookieOf } from '../../../test/support/http.ts';
import { appAuthorization, startTestIdp, type TestIdp } from '../../../test/support/oidc-idp.ts';

// A loopback address: oidc-provider takes a custom-scheme (app) and an http callback together only for a native
// client, whose http callbacks must be loopback IPs (Keycloak, Entra ID and Okta allow both on one client as is).
const APP = 'http://127.0.0.1:3000';
/** Every code, state, flow cookie and token the suites saw: none may appear in a log line or an audit row. */
const secrets = new Set<string>(['gatehouse-client-secret']);
const CALLBACK = `${APP}/auth/callback`;
let db: TestDatabase;
let idp: TestIdp;
let gateway: TestGateway;

const oidcEnv = (extra: Record<string, string> = {}) => ({
  ...gateEnv('enforce'),
  GATEWAY_PLUGINS: 'auth',
  APP_BASE_URL: APP,
  AUTH_MODE: 'local+oidc',
  OIDC_ISSUER: idp.issuer,
  OIDC_CLIENT_ID: 'gatehouse',
  OIDC_CLIENT_SECRET: 'gatehouse-client-secret',
  OIDC_APP_SCHEMES: 'com.example.app',
  BOOTSTRAP_ADMIN_EMAIL: 'Boss@Example.com',
  // A small pool: a request that held one connection while waiting for another would starve it here.
  DATABASE_POOL_MAX: '4',
  // The per-address limit is tested on its own gateway below; here it must not turn refusals into 429s.
  TOKEN_FREE_FAILURES_PER_IP: '10000',
  ...extra,
});

/** The flow a browser makes up to the provider's redirect back: the callback URL and the flow cookie. */
async function browserSignIn(subject: string, returnTo = '/inbox') {
  const start = await fetch(`${gateway.url}/auth/oidc/start?returnTo=${encodeURIComponent(returnTo)}`, {
    redirect: 'manual',
  });
  expect(start.status).toBe(302);
  const flowCookie = /^gatehouse\.oidc-flow=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1] ?? '';
  const landed = await idp.signIn(start.headers.get('location') as string, subject);
  if (!('callback' in landed)) throw new Error(`the provider refused: ${landed.error}`);
  for (const key of ['code', 'state']) secrets.add(landed.callback.searchParams.get(key) ?? '');
  secrets.add(flowCookie);
  return { callback: landed.callback, flowCookie };
}

/** What the callback page posts. */
function exchange(callback: URL, flowCookie: string, override: Record<string, string> = {}) {
  const body = Object.fromEntries(
    ['code', 'state', 'iss'].map((key) => [key, callback.searchParams.get(key)]),
  );
  return postJson(
    gateway.url,
    '/api/v1/auth/oidc/exchange',
    { ...body, ...override },
    {
      cookie: `gatehouse.oidc-flow=${flowCookie}`,
    },
  );
}

async function gatedIdentity(sessionToken: string) {
  const path = '/api/v1/gate/identity';
  return fetch(`${gateway.url}${path}`, {
    headers: {
      'x-internal-signature': sign({ method: 'GET', url: path }),
      'x-forwarded-session': sessionToken,
    },
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  idp = await startTestIdp({
    clients: [
      {
        client_id: 'gatehouse',
        client_secret: 'gatehouse-client-secret',
        application_type: 'native',
        redirect_uris: [CALLBACK, 'com.example.app://auth/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: 'another-app',
        client_secret: 'another-secret',
        redirect_uris: ['http://other.example/callback'],
      },
    ],
  });
  idp.accounts.set('ada-sub', { email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' });
  gateway = await startTestGateway({ databaseUrl: db.url, env: oidcEnv() });
}, 60_000);
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
  await db?.drop();
});

describe('the browser flow', () => {
  it('start → provider → exchange: a session cookie that passes gate layer 2, and the token endpoint called by the server only', async () => {
    const before = idp.tokenRequests();
    const { callback, flowCookie } = await browserSignIn('ada-sub', '/inbox?tab=mine');
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    expect(idp.tokenRequests()).toBe(before); // the browser's part made no token request
    const res = await exchange(callback, flowCookie);
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { user: { email: string; roles: string[] }; returnTo: string };
    expect(body).toMatchObject({
      user: { email: 'ada@example.com', roles: [] },
      returnTo: '/inbox?tab=mine',
    });
    expect(idp.tokenRequests()).toBe(before + 1);
    const gated = await gatedIdentity(sessionCookieOf(res));
    expect(gated.status).toBe(200);
    const user = await userStore.findByEmail(db.pool, canonical('ada@example.com'));
    expect(user).toMatchObject({ provider: 'oidc', passwordHash: null, roles: [] });
  });

  it('refuses a replayed state, a replayed code and another browser’s flow, with no session', async () => {
    const { callback, flowCookie } = await browserSignIn('ada-sub');
    expect((await exchange(callback, flowCookie)).status).toBe(200);
    const again = await exchange(callback, flowCookie);
    expect([again.status, await problemCode(again)]).toEqual([400, 'auth.oidc.state_invalid']);

    const other = await browserSignIn('ada-sub');
    const stranger = await exchange(other.callback, randomBytes(32).toString('base64url'));
    expect([stranger.status, await problemCode(stranger)]).toEqual([400, 'auth.oidc.state_invalid']);
    expect(sessionCookieOf(stranger)).toBe('');

    // The code of one flow presented with another flow's state: the provider refuses the code (PKCE, used).
    const third = await browserSignIn('ada-sub');
    const fourth = await browserSignIn('ada-sub');
    const mixed = await exchange(third.callback, fourth.flowCookie, {
      state: fourth.callback.searchParams.get('state') as string,
      code: third.callback.searchParams.get('code') as string,
    });
    expect([mixed.status, await problemCode(mixed)]).toEqual([400, 'auth.oidc.code_rejected']);
  });

  it('counts a single sign-on and a refused exchange in the sign-in metrics', async () => {
    const signIns = () => metricSamples(gateway.metricsUrl, 'gatehouse_auth_sign_ins_total');
    const before = await signIns();
    const { callback, flowCookie } = await browserSignIn('ada-sub');
    expect((await exchange(callback, flowCookie)).status).toBe(200);
    const third = await browserSignIn('ada-sub');
    const fourth = await browserSignIn('ada-sub');
    const mixed = await exchange(third.callback, fourth.flowCookie, {
      state: fourth.callback.searchParams.get('state') as string,
      code: third.callback.searchParams.get('code') as string,
    });
    expect(mixed.status).toBe(400);
    expect(samplesAdded(before, await signIns())).toEqual({
      'method="oidc",outcome="success"': 1,
      'method="oidc",outcome="failure"': 1,
    });
  });

  it.each([
    ['another audience', (claims: Record<string, unknown>) => ({ ...claims, aud: 'another-app' })],
    ['a wrong nonce', (claims: Record<string, unknown>) => ({ ...claims, nonce: 'not-the-flows-nonce' })],
    [
      'an expired ID token',
      (claims: Record<string, unknown>) => ({
        ...claims,
        exp: Math.floor(Date.now() / 1000) - 3600,
        iat: Math.floor(Date.now() / 1000) - 7200,
      }),
    ],
    ['another issuer', (claims: Record<string, unknown>) => ({ ...claims, iss: 'https://evil.example' })],
  ])(
    'refuses an ID token with %s (signed by the provider’s own key): 401, no session',
    async (_name, change) => {
      const { callback, flowCookie } = await browserSignIn('ada-sub');
      idp.tamperNextIdToken(change);
      const res = await exchange(callback, flowCookie);
      expect([res.status, await problemCode(res)]).toEqual([401, 'auth.oidc.id_token_invalid']);
      expect(sessionCookieOf(res)).toBe('');
    },
  );
});

describe('device sign-in', () => {
  async function appSignIn(subject: string) {
    const authorization = await appAuthorization(idp, subject);
    return postJson(gateway.url, '/api/v1/auth/oidc/exchange', {
      ...authorization,
      device: { id: 'device-1', name: 'Ada’s phone', platform: 'ios' },
    });
  }

  it('answers an access token that passes the gate and a refresh token that rotates', async () => {
    const res = await appSignIn('ada-sub');
    expect(res.status, await res.clone().text()).toBe(200);
    const pair = (await res.json()) as { accessToken: string; refreshToken: string; tokenType: string };
    secrets.add(pair.accessToken).add(pair.refreshToken);
    expect(pair.tokenType).toBe('Bearer');
    expect(sessionCookieOf(res)).toBe('');
    expect((await gatedIdentity(pair.accessToken)).status).toBe(200);
    const refreshed = await postJson(gateway.url, '/api/v1/auth/token/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { accessToken: string; refreshToken: string };
    expect(next.refreshToken).not.toBe(pair.refreshToken);
    expect((await gatedIdentity(next.accessToken)).status).toBe(200);
  });

  it('a reused refresh token revokes the family: the newest tokens stop working too, and it is audited', async () => {
    const pair = (await (await appSignIn('ada-sub')).json()) as { refreshToken: string };
    const next = (await (
      await postJson(gateway.url, '/api/v1/auth/token/refresh', { refreshToken: pair.refreshToken })
    ).json()) as { accessToken: string; refreshToken: string; deviceSessionId: string };
    const reuse = await postJson(gateway.url, '/api/v1/auth/token/refresh', {
      refreshToken: pair.refreshToken,
    });
    expect([reuse.status, await problemCode(reuse)]).toEqual([401, 'auth.refresh.invalid']);
    // Every replica, this one too, refuses it once the revocation's notification arrives.
    await expect
      .poll(async () => (await gatedIdentity(next.accessToken)).status, { interval: 20, timeout: 10_000 })
      .toBe(401);
    const newest = await postJson(gateway.url, '/api/v1/auth/token/refresh', {
      refreshToken: next.refreshToken,
    });
    expect(newest.status).toBe(401);
    const { rows } = await db.pool.query(
      "SELECT payload FROM audit_log WHERE kind = 'auth.device.refresh_reused' AND payload->>'deviceSessionId' = $1",
      [next.deviceSessionId],
    );
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(pair.refreshToken);
  });

  it('20 parallel refreshes of one token: exactly one succeeds', async () => {
    const pair = (await (await appSignIn('ada-sub')).json()) as { refreshToken: string };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        postJson(gateway.url, '/api/v1/auth/token/refresh', { refreshToken: pair.refreshToken }),
      ),
    );
    expect(answers.filter((res) => res.status === 200)).toHaveLength(1);
    expect(answers.filter((res) => res.status === 401)).toHaveLength(19);
  });

  it('12 device sign-ins refreshing at once (3 times the pool): every refresh succeeds', async () => {
    const pairs = await Promise.all(
      Array.from(
        { length: 12 },
        async () => (await (await appSignIn('ada-sub')).json()) as { refreshToken: string },
      ),
    );
    const answers = await Promise.all(
      pairs.map((pair) =>
        postJson(gateway.url, '/api/v1/auth/token/refresh', { refreshToken: pair.refreshToken }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(pairs.map(() => 200));
  });

  it('refuses a redirect URI that is not an allowed app’s callback', async () => {
    const res = await postJson(gateway.url, '/api/v1/auth/oidc/exchange', {
      code: 'x',
      codeVerifier: 'a'.repeat(43),
      nonce: 'n',
      redirectUri: 'https://evil.example/auth/callback',
      device: { id: 'd' },
    });
    expect([res.status, await problemCode(res)]).toEqual([400, 'auth.oidc.redirect_uri_not_allowed']);
  });

  it('the provider refuses an unregistered redirect URI before any code exists', async () => {
    const authorize = new URL(`${idp.issuer}/auth`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'gatehouse',
      redirect_uri: 'com.evil.app://auth/callback',
      scope: 'openid',
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    expect(await idp.signIn(authorize.href, 'ada-sub')).toEqual({ error: 'invalid_redirect_uri' });
  });
});

describe('what the suites above left in the logs and the audit trail', () => {
  it('holds no code, state, flow cookie, token or client secret', async () => {
    const { rows } = await db.pool.query<{ payload: unknown }>('SELECT payload FROM audit_log');
    const written = JSON.stringify(rows) + JSON.stringify(gateway.logs());
    expect(rows.length).toBeGreaterThan(10);
    const leaked = [...secrets].filter((secret) => secret.length >= 16 && written.includes(secret));
    expect(leaked).toEqual([]);
  });
});

describe('the per-address limit on token requests', () => {
  it('failed refreshes and exchanges count together; past the allowance, 429 with Retry-After', async () => {
    // A database of its own: the counters are shared by every replica of a database, and the suites above failed
    // plenty from this address.
    const own = await createTestDatabase();
    const limited = await startTestGateway({
      databaseUrl: own.url,
      env: oidcEnv({ TOKEN_FREE_FAILURES_PER_IP: '3' }),
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await postJson(limited.url, '/api/v1/auth/token/refresh', {
          refreshToken: `forged-${i}`,
        });
        statuses.push(res.status);
      }
      const exchange = await postJson(limited.url, '/api/v1/auth/oidc/exchange', {
        code: 'forged',
        state: 'forged',
      });
      statuses.push(exchange.status);
      const blocked = await postJson(limited.url, '/api/v1/auth/token/refresh', {
        refreshToken: 'forged-last',
      });
      expect(statuses).toEqual([401, 401, 401, 400]);
      expect([blocked.status, await problemCode(blocked)]).toEqual([429, 'auth.rate_limited']);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await limited.close();
      await own.drop();
    }
  });
});
