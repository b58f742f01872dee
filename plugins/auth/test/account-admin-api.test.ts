/** The accounts' admin API (README, "Routes") through the API gate, with sessions the gateway issued. */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { sessionStore } from '../src/store/session-store.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { AUTH_SECRET, COOKIE, gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { createSessionIssuer, systemClock } from '../../../test/support/core.ts';

let db: TestDatabase;
let gateway: TestGateway;
const ids: Record<'root' | 'agent', string> = { root: '', agent: '' };
const tokens: Record<'root' | 'agent', string> = { root: '', agent: '' };

beforeAll(async () => {
  db = await createTestDatabase();
  const issuer = await createSessionIssuer({
    secrets: [AUTH_SECRET],
    cookieName: COOKIE,
    clock: systemClock,
  });
  for (const [name, email, roles] of [
    ['root', 'root@example.com', ['*']],
    ['agent', 'agent@example.com', []],
  ] as const) {
    const user = await userStore.insertLocal(
      db.pool,
      canonical(email),
      await argon2.hash('violet umbrella 42', ARGON2_PARAMS),
    );
    ids[name] = user?.id ?? '';
    for (const role of roles) await userStore.grantRole(db.pool, ids[name], role, 'test');
    const session = await sessionStore.create(db.pool, {
      userId: ids[name],
      ttlSeconds: 3600,
      userAgent: null,
      ip: null,
      now: new Date(),
    });
    tokens[name] = await issuer.issue({ sub: ids[name], email, roles: [...roles], sid: session.id }, 3600);
  }
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { ...gateEnv('enforce'), GATEWAY_PLUGINS: 'auth' },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

/** A request the dashboard's server makes for a signed-in user: HMAC-signed, session forwarded. */
function call(as: 'root' | 'agent', method: string, path: string, body?: unknown) {
  const raw = body === undefined ? undefined : JSON.stringify(body);
  return fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      ...(raw ? { 'content-type': 'application/json' } : {}),
      'x-internal-signature': sign({ method, url: path, body: raw }),
      'x-forwarded-session': tokens[as],
    },
    body: raw,
  });
}
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

describe('admin API', () => {
  it('is refused to accounts without the admin roles', async () => {
    const res = await call('agent', 'GET', '/api/v1/admin/users');
    expect(res.status).toBe(403);
    expect((await json(res)).code).toBe('auth.forbidden');
  });

  it('lists and searches users without their password hashes', async () => {
    const res = await call('root', 'GET', '/api/v1/admin/users?search=AGENT&limit=10');
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      total: 1,
      users: [
        {
          id: ids.agent,
          email: 'agent@example.com',
          provider: 'local',
          directoryManaged: false,
          disabled: false,
          roles: [],
        },
      ],
    });
    expect(
      JSON.stringify(await json(await call('root', 'GET', `/api/v1/admin/users/${ids.root}`))),
    ).not.toContain('argon2');
  });

  it('grants and revokes roles, effective at once and audited', async () => {
    expect((await call('root', 'PUT', `/api/v1/admin/users/${ids.agent}/roles/users:admin`)).status).toBe(
      200,
    );
    expect((await call('agent', 'GET', '/api/v1/admin/users')).status).toBe(200);
    expect((await call('root', 'DELETE', `/api/v1/admin/users/${ids.agent}/roles/users:admin`)).status).toBe(
      200,
    );
    expect((await call('agent', 'GET', '/api/v1/admin/users')).status).toBe(403);
    await gateway.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT kind, actor, payload->>'role' AS role FROM audit_log WHERE kind LIKE 'auth.role.%' ORDER BY kind",
    );
    expect(rows).toEqual([
      { kind: 'auth.role.granted', actor: ids.root, role: 'users:admin' },
      { kind: 'auth.role.revoked', actor: ids.root, role: 'users:admin' },
    ]);
  });

  it('answers 404 for an unknown user or role, 400 for a malformed id', async () => {
    expect(
      (await json(await call('root', 'GET', '/api/v1/admin/users/00000000-0000-4000-8000-000000000000')))
        .code,
    ).toBe('auth.user.not_found');
    expect(
      (await json(await call('root', 'PUT', `/api/v1/admin/users/${ids.agent}/roles/wizard`))).code,
    ).toBe('auth.role.unknown');
    expect((await call('root', 'GET', '/api/v1/admin/users/not-a-uuid')).status).toBe(400);
  });

  it('tunes the settings; the password minimum cannot go below 8', async () => {
    const low = await call('root', 'PATCH', '/api/v1/admin/settings', { passwordMinLength: 7 });
    expect(low.status).toBe(400);
    expect(await json(low)).toMatchObject({
      code: 'validation.failed',
      errors: [{ path: 'body.passwordMinLength', message: 'the floor is 8' }],
    });
    const ok = await call('root', 'PATCH', '/api/v1/admin/settings', {
      passwordMinLength: 10,
      registrationEnabled: true,
    });
    expect(await json(ok)).toEqual({ registrationEnabled: true, passwordMinLength: 10, requireTotp: false });
    await gateway.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT payload FROM audit_log WHERE kind = 'auth.settings.changed'",
    );
    expect(rows).toEqual([{ payload: { changes: { passwordMinLength: 10, registrationEnabled: true } } }]);
  });

  it('disabling an account revokes its sessions at the gate and stops its logins', async () => {
    const res = await call('root', 'POST', `/api/v1/admin/users/${ids.agent}/disable`);
    expect(await json(res)).toMatchObject({ disabled: true });
    await expect
      .poll(async () => (await call('agent', 'GET', '/api/v1/gate/identity')).status, { interval: 20 })
      .toBe(401);
    const login = await fetch(`${gateway.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'agent@example.com', password: 'violet umbrella 42' }),
    });
    expect(login.status).toBe(401);
  });
});
