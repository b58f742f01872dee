/**
 * SCIM's security properties (README, "SCIM provisioning"): hostile input is a SCIM 4xx that writes nothing, never
 * a 500; refused tokens are limited per address while a valid token is never held back; tokens never reach the
 * audit log; concurrent membership changes leave every user exactly the roles their groups give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { createScimToken, scimClient, type ScimClient } from '../../../test/support/scim.ts';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ROLES = { Support: 'agent', Analysts: 'reports:read', 'IT Admins': 'users:admin' };

let db: TestDatabase;
let gateway: TestGateway;
let token: string;
let scim: ScimClient;

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query("INSERT INTO auth_roles (name) VALUES ('agent'), ('reports:read')");
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      GATEWAY_PLUGINS: 'auth',
      SCIM_GROUP_ROLES: JSON.stringify(ROLES),
      LOGIN_FREE_FAILURES_PER_IP: '3',
    },
  });
  token = (await createScimToken(db.pool, 'security')).token;
  scim = scimClient(gateway.url, token);
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function rowCounts(): Promise<Record<string, number>> {
  const { rows } = await db.pool.query<Record<string, number>>(
    `SELECT (SELECT count(*)::int FROM auth_users) AS users, (SELECT count(*)::int FROM auth_scim_users) AS scim,
            (SELECT count(*)::int FROM auth_scim_groups) AS groups,
            (SELECT count(*)::int FROM auth_scim_group_members) AS members,
            (SELECT count(*)::int FROM auth_user_roles) AS roles,
            (SELECT coalesce(sum(length(attributes::text)), 0)::int FROM auth_scim_users) AS attributes`,
  );
  return rows[0] ?? {};
}

const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('hostile input', () => {
  it('is a SCIM 4xx that writes nothing, on every write endpoint', async () => {
    const user = await scim('POST', '/Users', { userName: 'target@example.com' });
    const group = await scim('POST', '/Groups', { displayName: 'Target' });
    const userPath = `/Users/${user.body?.id as string}`;
    const groupPath = `/Groups/${group.body?.id as string}`;
    const patch = (operations: unknown) => JSON.stringify({ schemas: [PATCH_OP], Operations: operations });
    const bodies: Array<[string, string]> = [
      ['NUL in a value', '{"userName":"a\\u0000b@example.com"}'],
      ['NUL in a key', '{"userName":"nul@example.com","title\\u0000":"x"}'],
      ['a lone surrogate', '{"userName":"\\ud800@example.com"}'],
      ['nesting past the limit', `{"userName":"deep@example.com","name":${nested(70)}}`],
      ['malformed JSON', '{"userName":'],
      ['an array', '[]'],
      ['a string', '"userName"'],
      ['null', 'null'],
      ['wrong types', '{"userName":{"a":1},"active":[],"emails":"x"}'],
      ['a huge string', JSON.stringify({ userName: 'x'.repeat(100_000) })],
      [
        'too many emails',
        JSON.stringify({ userName: 'many@example.com', emails: Array(101).fill({ value: 'a@b.c' }) }),
      ],
      ['operations that are not an array', patch({ op: 'add' })],
      ['too many operations', patch(Array(1001).fill({ op: 'add', path: 'title', value: 'x' }))],
      ['a path that is a number', patch([{ op: 'add', path: 5, value: 'x' }])],
      ['a path with a NUL', patch([{ op: 'add', path: 'title\u0000', value: 'x' }])],
      ['a path with an unclosed filter', patch([{ op: 'replace', path: 'emails[value eq "a]', value: 'x' }])],
      [
        'a member that is not a user',
        JSON.stringify({ displayName: 'G', members: [{ value: 'not-a-user' }] }),
      ],
      [
        'a member that does not exist',
        JSON.stringify({ displayName: 'G', members: [{ value: '00000000-0000-4000-8000-000000000000' }] }),
      ],
    ];
    const before = await rowCounts();
    for (const [what, body] of bodies) {
      for (const [method, path] of [
        ['POST', '/Users'],
        ['PUT', userPath],
        ['PATCH', userPath],
        ['POST', '/Groups'],
        ['PUT', groupPath],
        ['PATCH', groupPath],
      ] as const) {
        const res = await scim(method, path, body);
        expect(res.status, `${what}: ${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${what}: ${method} ${path}`).toBeLessThan(500);
        expect(res.contentType).toBe('application/scim+json; charset=utf-8');
        expect(res.body).toMatchObject({
          schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
          status: String(res.status),
        });
      }
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('hostile query strings are a SCIM 400, never a 500', async () => {
    for (const query of [
      'filter=userName%20eq%20%22a%00b%22',
      'filter=%ED%A0%80',
      'filter=a&filter=b',
      `filter=${'('.repeat(900)}`,
      'startIndex=abc',
      'count=1e400',
      'attributes=%00',
    ]) {
      const res = await scim('GET', `/Users?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body?.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
    for (const path of ['/Users/%00', '/Groups/%2F', `/Users/${'a'.repeat(600)}`, '/Users/%20']) {
      const res = await scim('GET', path);
      expect([400, 404], path).toContain(res.status);
      expect(res.body?.schemas, path).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
    }
    // A path whose percent-encoding does not decode matches no route at all, SCIM's catch-all included: the
    // core's own 404 answers it (docs/errors.md: errors before a route is matched stay problem+json).
    for (const path of ['/Users/%ED%A0%80', '/Groups/%', '/Users/%zz', '/Groups/%C0%AF']) {
      const undecodable = await scim('GET', path);
      expect(undecodable.status, path).toBe(404);
      expect(undecodable.contentType).toBe('application/problem+json; charset=utf-8');
    }
  });
});

describe('bearer tokens', () => {
  it('refusals are limited per address; a valid token still works while the address is held back', async () => {
    const guess = scimClient(gateway.url, `scim_${'G'.repeat(43)}`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await guess('GET', '/Users')).status);
    // Three free refusals, the fourth starts the delay, then 429.
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const limited = await guess('GET', '/Users');
    expect(limited.body).toMatchObject({ status: '429' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await scim('GET', '/Users')).status).toBe(200);
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ reason: string }>(
      "SELECT payload->>'reason' AS reason FROM audit_log WHERE kind = 'api.auth.scim_token_failed'",
    );
    expect(rows.map((row) => row.reason)).toContain('unknown');
  });

  it('no token and no part of one reaches the audit log', async () => {
    const made = await scim('POST', '/Users', {
      userName: 'audited@example.com',
      password: 'a-password-okta-sends',
    });
    await scim('PATCH', `/Users/${made.body?.id as string}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false, password: 'another-password' } }],
    });
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ row: string }>(
      'SELECT row_to_json(a)::text AS row FROM audit_log a',
    );
    const log = rows.map((row) => row.row).join('\n');
    expect(log).toContain('auth.scim.user.deactivated');
    expect(log).toContain('"actor":"scim:security"');
    expect(log).not.toContain(token.slice(5, 25));
    expect(log).not.toContain('a-password-okta-sends');
    expect(log).not.toContain('another-password');
  });
});

describe('concurrency', () => {
  it('parallel membership changes leave every user exactly the roles their groups give', async () => {
    const users: string[] = [];
    for (let i = 0; i < 8; i++) {
      users.push((await scim('POST', '/Users', { userName: `race${i}@example.com` })).body?.id as string);
    }
    const groups: string[] = [];
    for (const name of Object.keys(ROLES)) {
      groups.push((await scim('POST', '/Groups', { displayName: name })).body?.id as string);
    }
    // Every user added to every group at once, and half of them removed from one group at the same time.
    const requests = users.flatMap((userId, i) =>
      groups.map((groupId, g) =>
        scim('PATCH', `/Groups/${groupId}`, {
          schemas: [PATCH_OP],
          Operations: [
            { op: 'add', path: 'members', value: [{ value: userId }] },
            ...(i % 2 === 0 && g === 0 ? [{ op: 'remove', path: `members[value eq "${userId}"]` }] : []),
          ],
        }),
      ),
    );
    const answers = await Promise.all(requests);
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const { rows } = await db.pool.query<{ userId: string; roles: string[]; expected: string[] }>(
      `SELECT s.user_id AS "userId",
              coalesce((SELECT array_agg(role ORDER BY role) FROM auth_user_roles r WHERE r.user_id = s.user_id), '{}') AS roles,
              coalesce((SELECT array_agg(DISTINCT m.role ORDER BY m.role)
                          FROM auth_scim_group_members gm JOIN auth_scim_groups g ON g.id = gm.group_id
                          JOIN unnest($2::text[], $3::text[]) AS m(name, role) ON m.name = g.display_name
                         WHERE gm.user_id = s.user_id), '{}') AS expected
         FROM auth_scim_users s WHERE s.user_id = ANY($1::uuid[])`,
      [users, Object.keys(ROLES), Object.values(ROLES)],
    );
    expect(rows).toHaveLength(users.length);
    for (const row of rows) expect(row.roles).toEqual(row.expected);
    expect(rows.filter((row) => row.roles.includes('agent'))).toHaveLength(4);
  });

  it('parallel creations of one userName yield exactly one user', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        scim('POST', '/Users', {
          userName: i % 2 ? 'Twin@example.com' : 'twin@example.com',
          emails: [{ value: `twin${i}@example.com` }],
        }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 409)).toHaveLength(11);
  });
});
