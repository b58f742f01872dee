/**
 * Authorization from the account as it is now (plugins/auth/README.md, "Sessions and current roles"): a
 * session of the gateway carries its account's current roles on every replica, whatever its token says;
 * a token minted by an external dashboard carries the dashboard's claim. Through HTTP, real Postgres, two
 * replicas on one database, with the kyc plugin and an upstream as the other consumers of the identity.
 */
import argon2 from 'argon2';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { eventually } from '../../../test/support/eventually.ts';
import { gateEnv, mintSession, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { postJson, problemCode, sessionCookieOf } from '../../../test/support/http.ts';
import { canonical } from '../../../test/support/accounts.ts';

const APP = 'http://localhost:3000';
const PASSWORD = 'violet umbrella 42';
let db: TestDatabase;
let replicas: TestGateway[];
let upstream: Server;
const upstreamSaw: IncomingHttpHeaders[] = [];
const ids: Record<string, string> = {};

async function seed(name: string, roles: string[] = []): Promise<void> {
  const email = `${name}@example.com`;
  const user = await userStore.insertLocal(
    db.pool,
    canonical(email),
    await argon2.hash(PASSWORD, ARGON2_PARAMS),
  );
  ids[name] = user?.id ?? '';
  for (const role of roles) await userStore.grantRole(db.pool, ids[name], role, 'test');
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    upstreamSaw.push(req.headers);
    res.end('{}');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  db = await createTestDatabase();
  await seed('root', ['*']);
  for (const name of ['eve', 'gus', 'ida', 'jon']) await seed(name);
  const env = {
    ...gateEnv('enforce'),
    GATEWAY_PLUGINS: 'auth,kyc',
    APP_BASE_URL: APP,
    GATEWAY_UPSTREAMS: JSON.stringify([
      {
        prefix: '/api/v1/legacy',
        target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        stripPrefix: true,
      },
    ]),
  };
  replicas = [
    await startTestGateway({ databaseUrl: db.url, env }),
    await startTestGateway({ databaseUrl: db.url, env }),
  ];
});
afterAll(async () => {
  for (const gateway of replicas ?? []) await gateway.close();
  await db?.drop();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

const replica = (index: 0 | 1) => replicas[index] as TestGateway;

/** Signs in on replica A; the session cookie's value. */
async function signIn(name: string): Promise<string> {
  const res = await postJson(replica(0).url, '/auth/login', {
    email: `${name}@example.com`,
    password: PASSWORD,
  });
  expect(res.status).toBe(200);
  return sessionCookieOf(res);
}

/** A dashboard's request for a user: HMAC-signed, the session token forwarded (enforce mode). */
function call(token: string, method: string, path: string, body?: unknown, on: 0 | 1 = 0) {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  return fetch(`${replica(on).url}${path}`, {
    method,
    headers: {
      ...(raw ? { 'content-type': 'application/json' } : {}),
      'x-internal-signature': sign({ method, url: path, body: raw }),
      'x-forwarded-session': token,
    },
    body: raw,
  });
}

let tenants = 0;
/** The statuses of every admin route a role change must reach: kyc GET and POST, the auth admin API. */
async function adminStatuses(token: string, on: 0 | 1 = 0): Promise<number[]> {
  return [
    (await call(token, 'GET', '/api/v1/admin/kyc/tenants', undefined, on)).status,
    (await call(token, 'POST', '/api/v1/admin/kyc/tenants', { name: `Tenant ${++tenants}` }, on)).status,
    (await call(token, 'GET', '/api/v1/admin/users', undefined, on)).status,
  ];
}

async function identityRoles(token: string, on: 0 | 1 = 0): Promise<unknown> {
  const res = await call(token, 'GET', '/api/v1/gate/identity', undefined, on);
  return ((await res.json()) as { identity: { roles: string[] } | null }).identity?.roles;
}

async function upstreamRoles(token: string): Promise<string | undefined> {
  expect((await call(token, 'GET', '/api/v1/legacy/whoami')).status).toBe(200);
  return upstreamSaw.at(-1)?.['x-gatehouse-roles'] as string | undefined;
}

describe("the gateway's own sessions carry the account's current roles", () => {
  it('a role revoked after sign-in is gone for the same cookie: kyc and auth admin routes 403, identity and upstream without it', async () => {
    const root = await signIn('root');
    expect((await call(root, 'PUT', `/api/v1/admin/users/${ids.eve}/roles/*`)).status).toBe(200);
    const eve = await signIn('eve');
    expect(await adminStatuses(eve, 0)).toEqual([200, 201, 200]);
    expect(await adminStatuses(eve, 1)).toEqual([200, 201, 200]);
    expect(await upstreamRoles(eve)).toBe('*');

    expect((await call(root, 'DELETE', `/api/v1/admin/users/${ids.eve}/roles/*`)).status).toBe(200);
    // The replica that made the change answers from the new state at once.
    expect(await adminStatuses(eve, 0)).toEqual([403, 403, 403]);
    const kyc = await call(eve, 'GET', '/api/v1/admin/kyc/tenants');
    expect(await problemCode(kyc)).toBe('kyc.forbidden');
    expect(await identityRoles(eve, 0)).toEqual([]);
    expect(await upstreamRoles(eve)).toBe('');
    // The other replica had the roles in memory; it hears of the change through Postgres.
    await eventually('replica B refuses the revoked role', 10_000, async () =>
      (await adminStatuses(eve, 1)).every((status) => status === 403) ? true : undefined,
    );
    expect(await identityRoles(eve, 1)).toEqual([]);
    // The cookie itself, on the auth plugin's own routes, says the same.
    const session = await fetch(`${replica(1).url}/api/v1/auth/session`, {
      headers: { cookie: `authjs.session-token=${eve}` },
    });
    expect(await session.json()).toMatchObject({ identity: { sub: ids.eve, roles: [] } });
  });

  it('a role granted mid-session counts at once, on the other replica as soon as it hears of it', async () => {
    const root = await signIn('root');
    const gus = await signIn('gus');
    expect(await adminStatuses(gus, 0)).toEqual([403, 403, 403]);
    expect(await adminStatuses(gus, 1)).toEqual([403, 403, 403]);
    expect((await call(root, 'PUT', `/api/v1/admin/users/${ids.gus}/roles/*`, undefined, 1)).status).toBe(
      200,
    );
    expect(await adminStatuses(gus, 1)).toEqual([200, 201, 200]);
    await eventually('replica A grants the new role', 10_000, async () =>
      (await call(gus, 'GET', '/api/v1/admin/kyc/tenants', undefined, 0)).status === 200 ? true : undefined,
    );
    expect(await identityRoles(gus, 0)).toEqual(['*']);
  });

  it('a change made outside the admin API (SQL, as LDAP sync or `admin create` do) reaches both replicas', async () => {
    const ida = await signIn('ida');
    expect(await identityRoles(ida, 0)).toEqual([]);
    expect(await identityRoles(ida, 1)).toEqual([]);
    await userStore.grantRole(db.pool, ids.ida ?? '', '*', 'ldap');
    for (const on of [0, 1] as const) {
      await eventually(`replica ${on} sees the grant`, 10_000, async () =>
        JSON.stringify(await identityRoles(ida, on)) === '["*"]' ? true : undefined,
      );
    }
    expect(await adminStatuses(ida, 1)).toEqual([200, 201, 200]);
  });

  it('a change made while a replica was not listening still counts: nothing is answered from memory then', async () => {
    const root = await signIn('root');
    const jon = await signIn('jon');
    expect((await call(root, 'PUT', `/api/v1/admin/users/${ids.jon}/roles/*`)).status).toBe(200);
    for (const on of [0, 1] as const) expect(await identityRoles(jon, on)).toEqual(['*']);
    // Both replicas lose their LISTEN connection; the revocation below is announced to nobody.
    const { rowCount } = await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN auth_account_changed'`,
    );
    expect(rowCount).toBe(2);
    await db.pool.query("DELETE FROM auth_user_roles WHERE user_id = $1 AND role = '*'", [ids.jon]);
    for (const on of [0, 1] as const) {
      await eventually(`replica ${on} drops what it could not hear of`, 10_000, async () =>
        JSON.stringify(await identityRoles(jon, on)) === '[]' ? true : undefined,
      );
    }
  });

  it('a session whose sub is not an account of the gateway is refused at the gate', async () => {
    const forged = await mintSession({ claims: { sub: 'dashboard-user-42', roles: ['*'], sid: 'sid-9' } });
    expect((await call(forged, 'GET', '/api/v1/admin/users')).status).toBe(401);
  });
});

describe('tokens of an external dashboard (no sid) carry its claim', () => {
  const external = (roles: string[]) =>
    mintSession({ claims: { sub: 'dashboard-user-42', email: 'ops@example.com', roles, sid: undefined } });

  it('with the wildcard role: the kyc and auth admin routes answer, the identity is the claim', async () => {
    const token = await external(['*']);
    expect(await adminStatuses(token, 0)).toEqual([200, 201, 200]);
    const res = await call(token, 'GET', '/api/v1/gate/identity');
    expect(await res.json()).toMatchObject({
      identity: { sub: 'dashboard-user-42', email: 'ops@example.com', roles: ['*'], sid: null },
    });
    expect(await upstreamRoles(token)).toBe('*');
  });

  it('without an admin role: 403 from every admin route, never a 5xx', async () => {
    const token = await external(['agent']);
    expect(await adminStatuses(token, 1)).toEqual([403, 403, 403]);
    expect((await call(token, 'GET', '/api/v1/admin/settings', undefined, 1)).status).toBe(403);
  });

  it("as the browser cookie: the account routes answer 401, never a 5xx (it names no account of the gateway's)", async () => {
    const token = await external(['*']);
    const headers = { origin: APP, cookie: `authjs.session-token=${token}` };
    const change = await postJson(
      replica(0).url,
      '/api/v1/auth/password',
      { currentPassword: PASSWORD, newPassword: 'another violet umbrella' },
      headers,
    );
    expect(change.status).toBe(401);
    expect(await problemCode(change)).toBe('auth.session.missing');
    const logout = await postJson(replica(0).url, '/api/v1/auth/logout', {}, headers);
    expect(logout.status).toBe(401);
  });
});

describe('warn mode, without any valid signature', () => {
  it('an admin route called with an external session answers 403, never a 5xx', async () => {
    const warn = await startTestGateway({
      databaseUrl: db.url,
      env: { ...gateEnv('warn'), GATEWAY_PLUGINS: 'auth', APP_BASE_URL: APP },
    });
    try {
      const token = await mintSession({
        claims: { sub: 'dashboard-user-42', roles: ['agent'], sid: undefined },
      });
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', JSON.stringify({ registrationEnabled: true })],
      ] as const) {
        const res = await fetch(`${warn.url}/api/v1/admin/settings`, {
          method,
          headers: { 'content-type': 'application/json', 'x-forwarded-session': token },
          body,
        });
        expect(res.status).toBe(403);
        expect(await problemCode(res)).toBe('auth.forbidden');
      }
      const users = await fetch(`${warn.url}/api/v1/admin/users`, {
        headers: { 'x-forwarded-session': token },
      });
      expect(users.status).toBe(403);
    } finally {
      await warn.close();
    }
  });
});
