/**
 * SCIM 2.0 provisioning (README, "SCIM provisioning") through HTTP on a booted gateway and a real database: the
 * request sequences Entra ID and Okta send, written as they send them, and the accounts, roles and sessions
 * they leave behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStore } from '../src/store/session-store.ts';
import { userStore } from '../src/store/user-store.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { AUTH_SECRET, COOKIE, gateEnv, sign } from '../../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { canonical, seedLocalAccount } from '../../../test/support/accounts.ts';
import { createSessionIssuer, systemClock, type SessionIssuer } from '../../../test/support/core.ts';
import { createScimToken, SCIM_BASE, scimClient, type ScimClient } from '../../../test/support/scim.ts';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const APP = 'https://gatehouse.example.com';

let db: TestDatabase;
let gateway: TestGateway;
let scim: ScimClient;
let issuer: SessionIssuer;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query("INSERT INTO auth_roles (name) VALUES ('agent'), ('reports:read')");
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      ...gateEnv('enforce'),
      GATEWAY_PLUGINS: 'auth',
      APP_BASE_URL: APP,
      // APP_BASE_URL is https: the session cookie's name would get Auth.js's __Secure- prefix.
      AUTH_SESSION_COOKIE: COOKIE,
      SCIM_GROUP_ROLES: JSON.stringify({
        Support: 'agent',
        'IT Admins': 'users:admin',
        Analysts: 'reports:read',
      }),
    },
  });
  scim = scimClient(gateway.url, (await createScimToken(db.pool, 'entra')).token);
  issuer = await createSessionIssuer({ secrets: [AUTH_SECRET], cookieName: COOKIE, clock: systemClock });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const account = (email: string) => userStore.findByEmail(db.pool, canonical(email));

async function auditKinds(prefix: string): Promise<string[]> {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ kind: string }>(
    'SELECT kind FROM audit_log WHERE kind LIKE $1 ORDER BY id',
    [`${prefix}%`],
  );
  return rows.map((row) => row.kind);
}

/** A signed-in session of the account, as a dashboard forwards it through the gate. */
async function gatedStatus(userId: string, email: string): Promise<() => Promise<number>> {
  const { id } = await sessionStore.create(db.pool, {
    userId,
    ttlSeconds: 3600,
    userAgent: 'test',
    ip: '127.0.0.1',
    now: new Date(),
  });
  const token = await issuer.issue({ sub: userId, email, roles: [], sid: id }, 3600);
  const path = '/api/v1/gate/identity';
  return async () =>
    (
      await fetch(`${gateway.url}${path}`, {
        headers: { 'x-internal-signature': sign({ method: 'GET', url: path }), 'x-forwarded-session': token },
      })
    ).status;
}

describe('Entra ID', () => {
  it('provisions, updates and deactivates a user, and maps its groups to roles', async () => {
    // Entra ID first looks the user up, then creates it.
    const lookup = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "Ada.Lovelace@contoso.com"')}`,
    );
    expect(lookup.status).toBe(200);
    expect(lookup.contentType).toBe('application/scim+json; charset=utf-8');
    expect(lookup.body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Ada.Lovelace@contoso.com',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Ada.Lovelace@contoso.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'Ada Lovelace', familyName: 'Lovelace', givenName: 'Ada' },
      roles: [],
      [ENTERPRISE]: { department: 'Engineering' },
    });
    expect(created.status).toBe(201);
    const id = created.body?.id as string;
    expect(created.headers.get('location')).toBe(`${APP}${SCIM_BASE}/Users/${id}`);
    expect(created.body).toMatchObject({
      schemas: [USER, ENTERPRISE],
      userName: 'Ada.Lovelace@contoso.com',
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      active: true,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      [ENTERPRISE]: { department: 'Engineering' },
      groups: [],
      meta: { resourceType: 'User', location: `${APP}${SCIM_BASE}/Users/${id}` },
    });
    expect(await account('ada.lovelace@contoso.com')).toMatchObject({
      id,
      provider: 'oidc',
      directoryManaged: true,
      passwordHash: null,
      disabledAt: null,
      roles: [],
    });

    // Entra ID's PATCH: capitalised ops, a value filter in the path, the manager as a bare id.
    const patched = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@contoso.com' },
        { op: 'Replace', path: 'name.familyName', value: 'King' },
        { op: 'Add', path: `${ENTERPRISE}:manager`, value: '2819c223-7f76-453a-919d-413861904646' },
        { op: 'Replace', path: 'displayName', value: 'Ada King' },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      emails: [{ primary: true, type: 'work', value: 'ada@contoso.com' }],
      name: { givenName: 'Ada', familyName: 'King' },
      displayName: 'Ada King',
      [ENTERPRISE]: { department: 'Engineering', manager: { value: '2819c223-7f76-453a-919d-413861904646' } },
    });
    // The primary email is the account's email.
    expect((await userStore.findById(db.pool, id))?.email).toBe('ada@contoso.com');

    // A group, created empty, then filled with Entra ID's member PATCH.
    const found = await scim(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Support"')}`,
    );
    expect(found.body).toMatchObject({ totalResults: 0 });
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'Support',
      meta: { resourceType: 'Group' },
    });
    expect(group.status).toBe(201);
    const groupId = group.body?.id as string;
    const added = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }] }],
    });
    expect(added.status).toBe(200);
    expect(added.body?.members).toEqual([
      { value: id, $ref: `${APP}${SCIM_BASE}/Users/${id}`, display: 'Ada King', type: 'User' },
    ]);
    expect((await account('ada@contoso.com'))?.roles).toEqual(['agent']);
    expect((await scim('GET', `/Users/${id}`)).body?.groups).toEqual([
      { value: groupId, $ref: `${APP}${SCIM_BASE}/Groups/${groupId}`, display: 'Support', type: 'direct' },
    ]);

    // Entra ID removes members with a value list, not a filter.
    const removed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }],
    });
    expect(removed.status).toBe(200);
    expect(removed.body?.members).toEqual([]);
    expect((await account('ada@contoso.com'))?.roles).toEqual([]);

    // A session of the user passes the gate until Entra ID deactivates it with the string "False".
    const status = await gatedStatus(id, 'ada@contoso.com');
    expect(await status()).toBe(200);
    const disabled = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body?.active).toBe(false);
    expect(await status()).toBe(401);
    const user = await account('ada@contoso.com');
    expect(user?.disabledAt).not.toBeNull();
    const { rows: live } = await db.pool.query(
      'SELECT 1 FROM auth_sessions WHERE user_id = $1 AND revoked_at IS NULL',
      [id],
    );
    expect(live).toEqual([]);

    expect(await auditKinds('auth.scim.')).toEqual([
      'auth.scim.user.created',
      'auth.scim.user.updated',
      'auth.scim.group.created',
      'auth.scim.group.updated',
      'auth.scim.group.updated',
      'auth.scim.user.deactivated',
    ]);
  });
});

describe('Okta', () => {
  it('provisions with POST, updates with PUT, maps group pushes to roles and deactivates with PATCH', async () => {
    const lookup = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "grace.hopper@okta.example"')}&startIndex=1&count=100`,
    );
    expect(lookup.body).toMatchObject({ totalResults: 0, startIndex: 1, itemsPerPage: 0 });
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'grace.hopper@okta.example',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ primary: true, value: 'grace.hopper@okta.example', type: 'work' }],
      displayName: 'Grace Hopper',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: 'Okta-sends-this-1',
      active: true,
    });
    expect(created.status).toBe(201);
    const id = created.body?.id as string;
    expect(JSON.stringify(created.body)).not.toContain('Okta-sends-this-1');
    const { rows: stored } = await db.pool.query<{ attributes: string }>(
      'SELECT attributes::text FROM auth_scim_users WHERE user_id = $1',
      [id],
    );
    expect(stored[0]?.attributes).not.toContain('Okta-sends-this-1');

    // Okta updates a profile with a full PUT.
    const replaced = await scim('PUT', `/Users/${id}`, {
      schemas: [USER],
      id,
      userName: 'grace.hopper@okta.example',
      name: { givenName: 'Grace', familyName: 'Murray Hopper' },
      emails: [{ primary: true, value: 'grace@okta.example', type: 'work' }],
      displayName: 'Grace Murray Hopper',
      active: true,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      displayName: 'Grace Murray Hopper',
      name: { familyName: 'Murray Hopper' },
    });
    expect(replaced.body).not.toHaveProperty('locale');
    expect((await userStore.findById(db.pool, id))?.email).toBe('grace@okta.example');

    // Group push: create, rename, add and remove members.
    const group = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'Analysts (old)',
      members: [],
    });
    const groupId = group.body?.id as string;
    const renamed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Analysts' } }],
    });
    expect(renamed.body).toMatchObject({ displayName: 'Analysts' });
    await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: 'grace@okta.example' }] }],
    });
    const admins = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: 'IT Admins',
      members: [{ value: id }],
    });
    expect((await account('grace@okta.example'))?.roles).toEqual(['reports:read', 'users:admin']);
    await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    expect((await account('grace@okta.example'))?.roles).toEqual(['users:admin']);
    // Renaming a group away from a mapped name takes its role away.
    await scim('PATCH', `/Groups/${admins.body?.id as string}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { displayName: 'IT Admins (retired)' } }],
    });
    expect((await account('grace@okta.example'))?.roles).toEqual([]);

    // Okta deactivates with a path-less replace.
    const status = await gatedStatus(id, 'grace@okta.example');
    expect(await status()).toBe(200);
    const deactivated = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(deactivated.body?.active).toBe(false);
    expect(await status()).toBe(401);

    // ... and reactivates with a PUT: the account SCIM disabled is enabled again.
    const reactivated = await scim('PUT', `/Users/${id}`, { ...replaced.body, active: true });
    expect(reactivated.status).toBe(200);
    expect((await account('grace@okta.example'))?.disabledAt).toBeNull();

    expect(await scim('DELETE', `/Groups/${groupId}`)).toMatchObject({ status: 204, body: null });
    expect((await scim('GET', `/Groups/${groupId}`)).status).toBe(404);
  });
});

describe('users', () => {
  it('DELETE deactivates the account and removes the SCIM user; its userName can be provisioned again', async () => {
    const made = await scim('POST', '/Users', { userName: 'leaver@example.com' });
    const id = made.body?.id as string;
    const group = await scim('POST', '/Groups', { displayName: 'Support', members: [{ value: id }] });
    expect((await account('leaver@example.com'))?.roles).toEqual(['agent']);
    const status = await gatedStatus(id, 'leaver@example.com');
    expect(await status()).toBe(200);

    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(204);
    expect(await status()).toBe(401);
    expect((await scim('GET', `/Users/${id}`)).status).toBe(404);
    expect((await scim('DELETE', `/Users/${id}`)).status).toBe(404);
    const left = await account('leaver@example.com');
    expect(left).toMatchObject({ id, roles: [] });
    expect(left?.disabledAt).not.toBeNull();
    expect((await scim('GET', `/Groups/${group.body?.id as string}`)).body?.members).toEqual([]);

    // Provisioned again: the same account, enabled again, since SCIM had disabled it.
    const again = await scim('POST', '/Users', { userName: 'leaver@example.com', active: true });
    expect(again.status).toBe(201);
    expect(again.body?.id).toBe(id);
    expect((await account('leaver@example.com'))?.disabledAt).toBeNull();
  });

  it('takes over an account single sign-on made, never one with a password', async () => {
    const { rows } = await db.pool.query<{ id: string }>(
      "INSERT INTO auth_users (email, provider) VALUES ('jit@example.com', 'oidc') RETURNING id",
    );
    const adopted = await scim('POST', '/Users', { userName: 'jit@example.com' });
    expect(adopted.status).toBe(201);
    expect(adopted.body?.id).toBe(rows[0]?.id);
    expect((await account('jit@example.com'))?.directoryManaged).toBe(true);

    await seedLocalAccount(db.pool, { email: 'local@example.com', password: 'a long local password' });
    const refused = await scim('POST', '/Users', {
      userName: 'someone',
      emails: [{ value: 'LOCAL@example.com' }],
    });
    expect(refused).toMatchObject({ status: 409, body: { scimType: 'uniqueness', status: '409' } });
    expect((await account('local@example.com'))?.directoryManaged).toBe(false);
  });

  it('an account an admin disabled stays disabled when the directory reactivates it', async () => {
    const made = await scim('POST', '/Users', { userName: 'held@example.com' });
    const id = made.body?.id as string;
    await userStore.disable(db.pool, id, new Date());
    await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    const back = await scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(back.body?.active).toBe(true);
    expect((await account('held@example.com'))?.disabledAt).not.toBeNull();
  });

  it('a role an admin granted by hand stays when the group that also gave it goes', async () => {
    const made = await scim('POST', '/Users', { userName: 'kept@example.com' });
    const id = made.body?.id as string;
    const group = await scim('POST', '/Groups', { displayName: 'Support', members: [{ value: id }] });
    // The admin grants, through the admin API, the role the group already gives: it becomes the admin's grant.
    const rootId = await seedLocalAccount(db.pool, {
      email: 'root@example.com',
      password: 'a long root password',
      roles: ['*'],
    });
    const path = `/api/v1/admin/users/${id}/roles/agent`;
    const session = await sessionStore.create(db.pool, {
      userId: rootId,
      ttlSeconds: 3600,
      userAgent: null,
      ip: null,
      now: new Date(),
    });
    const granted = await fetch(`${gateway.url}${path}`, {
      method: 'PUT',
      headers: {
        'x-internal-signature': sign({ method: 'PUT', url: path }),
        'x-forwarded-session': await issuer.issue(
          { sub: rootId, email: 'root@example.com', roles: ['*'], sid: session.id },
          3600,
        ),
      },
    });
    expect(granted.status).toBe(200);
    const { rows } = await db.pool.query<{ grantedBy: string }>(
      `SELECT granted_by AS "grantedBy" FROM auth_user_roles WHERE user_id = $1 AND role = 'agent'`,
      [id],
    );
    expect(rows).toEqual([{ grantedBy: rootId }]);
    await scim('DELETE', `/Groups/${group.body?.id as string}`);
    expect((await account('kept@example.com'))?.roles).toEqual(['agent']);
  });

  it('filters by userName (any case), externalId and id, and pages with startIndex and count', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const made = await scim('POST', '/Users', {
        userName: `page${i}@paging.example`,
        externalId: `ext-${i}`,
      });
      ids.push(made.body?.id as string);
    }
    const byName = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "PAGE3@Paging.Example"')}`,
    );
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: ids[3] }] });
    const byExternal = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "ext-1"')}`);
    expect(byExternal.body).toMatchObject({ totalResults: 1, Resources: [{ id: ids[1] }] });
    expect(
      (await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "EXT-1"')}`)).body,
    ).toMatchObject({
      totalResults: 0,
    });
    const byId = await scim(
      'GET',
      `/Users?filter=${encodeURIComponent(`id eq "${ids[2]}" and externalId eq "ext-2"`)}`,
    );
    expect(byId.body).toMatchObject({ totalResults: 1 });

    const all = await scim('GET', '/Users?startIndex=1&count=1000');
    const total = all.body?.totalResults as number;
    expect(total).toBeGreaterThanOrEqual(5);
    const page = await scim('GET', `/Users?startIndex=${total - 1}&count=3&attributes=userName`);
    expect(page.body).toMatchObject({ totalResults: total, startIndex: total - 1, itemsPerPage: 2 });
    const first = (page.body?.Resources as Array<Record<string, unknown>>)[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(['id', 'schemas', 'userName']);
    expect((await scim('GET', '/Users?count=0')).body).toMatchObject({ totalResults: total, Resources: [] });
  });
});

describe('errors, in SCIM format', () => {
  it('a bad filter is 400 invalidFilter, an unknown id 404, a taken userName 409 uniqueness', async () => {
    for (const filter of [
      'userName co "a"',
      'userName eq',
      'nickName eq "a"',
      'userName eq "a" or id eq "b"',
      '((',
    ]) {
      const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res).toMatchObject({
        status: 400,
        contentType: 'application/scim+json; charset=utf-8',
        body: {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
          status: '400',
          scimType: 'invalidFilter',
        },
      });
    }
    for (const path of [
      '/Users/5b2bb1b4-6d1e-4c59-9a1a-7d7b8c6f0000',
      '/Users/not-an-id',
      '/Groups/x',
      '/Nope',
    ]) {
      expect(await scim('GET', path)).toMatchObject({ status: 404, body: { status: '404' } });
    }
    await scim('POST', '/Users', { userName: 'Taken@example.com' });
    const taken = await scim('POST', '/Users', {
      userName: 'taken@EXAMPLE.com',
      emails: [{ value: 'other@example.com' }],
    });
    expect(taken).toMatchObject({ status: 409, body: { status: '409', scimType: 'uniqueness' } });
  });

  it('PATCH problems carry their scimType', async () => {
    const made = await scim('POST', '/Users', { userName: 'patchy@example.com' });
    const id = made.body?.id as string;
    const patch = (operations: unknown) =>
      scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: operations });
    expect((await patch([{ op: 'remove' }])).body?.scimType).toBe('noTarget');
    expect((await patch([{ op: 'replace', path: 'emails[type eq "work"', value: 'x' }])).body?.scimType).toBe(
      'invalidPath',
    );
    expect((await patch([{ op: 'replace', path: 'id', value: 'x' }])).body?.scimType).toBe('mutability');
    expect((await patch([{ op: 'replace', path: 'active', value: 'maybe' }])).body?.scimType).toBe(
      'invalidValue',
    );
    expect((await patch([{ op: 'move', path: 'active' }])).body?.scimType).toBe('invalidSyntax');
    expect((await patch([{ op: 'remove', path: 'userName' }])).body?.scimType).toBe('invalidValue');
    // Nothing of a refused PATCH is written.
    expect((await scim('GET', `/Users/${id}`)).body).toMatchObject({
      userName: 'patchy@example.com',
      active: true,
    });
  });

  it('without a valid token: 401 in SCIM format, before anything is read', async () => {
    const { token, id } = await createScimToken(db.pool, 'to-revoke');
    const revoked = scimClient(gateway.url, token);
    expect((await revoked('GET', '/Users')).status).toBe(200);
    await db.pool.query('UPDATE auth_scim_tokens SET revoked_at = now() WHERE id = $1', [id]);
    for (const client of [
      revoked,
      scimClient(gateway.url, undefined),
      scimClient(gateway.url, `scim_${'A'.repeat(43)}`),
      scimClient(gateway.url, 'not-a-token'),
    ]) {
      for (const [method, path] of [
        ['GET', '/Users'],
        ['POST', '/Users'],
        ['GET', '/ServiceProviderConfig'],
        ['DELETE', '/Nope/1'],
      ] as const) {
        const res = await client(method, path, method === 'POST' ? '{not json' : undefined);
        if (method === 'POST') {
          // A body that is not JSON is refused by the body step, which runs before any route's own check.
          expect(res.status).toBe(400);
          continue;
        }
        expect(res).toMatchObject({
          status: 401,
          contentType: 'application/scim+json; charset=utf-8',
          body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '401' },
        });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="scim"');
      }
    }
  });
});

describe('discovery', () => {
  it('ServiceProviderConfig, ResourceTypes and Schemas describe what the gateway reads', async () => {
    expect((await scim('GET', '/ServiceProviderConfig')).body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await scim('GET', '/ResourceTypes');
    expect((types.body?.Resources as Array<{ id: string }>).map((type) => type.id)).toEqual([
      'User',
      'Group',
    ]);
    expect((await scim('GET', '/ResourceTypes/User')).body).toMatchObject({
      endpoint: '/Users',
      schemaExtensions: [{ schema: ENTERPRISE, required: false }],
    });
    const schemas = await scim('GET', '/Schemas');
    expect((schemas.body?.Resources as Array<{ id: string }>).map((schema) => schema.id)).toEqual([
      USER,
      ENTERPRISE,
      GROUP,
    ]);
    const user = await scim('GET', `/Schemas/${USER}`);
    expect(user.body?.attributes).toContainEqual(
      expect.objectContaining({ name: 'userName', required: true, uniqueness: 'server', caseExact: false }),
    );
  });
});
