/**
 * Bad bytes never become a 5xx (docs/errors.md): text PostgreSQL cannot store (U+0000, unpaired
 * surrogates) in any string the client sends, JSON nested past the depth limit, and compressed bodies
 * that do not decompress. Each is a 4xx problem+json with its own code, and no row is written.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/clock.ts';
import { createSessionIssuer } from '../src/gate/session-issuer.ts';
import { ARGON2_PARAMS } from '../../plugins/auth/src/service/password-hasher.ts';
import { sessionStore } from '../../plugins/auth/src/store/session-store.ts';
import { userStore } from '../../plugins/auth/src/store/user-store.ts';
import { canonical } from '../../test/support/accounts.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { SIGNATURE_HEADER, signatureHeader } from '../src/gate/hmac.ts';
import { AUTH_SECRET, COOKIE, gateEnv, INTERNAL_SECRET, sign } from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';

let db: TestDatabase;
let enforce: TestGateway;
let warn: TestGateway;
let upstream: Server;
let upstreamCalls = 0;
let rootId = '';
let rootToken = '';
let tenantId = '';
let apiKey = '';

/** Every table a request of this suite could write to. */
const TABLES = [
  'audit_log',
  'auth_users',
  'auth_user_roles',
  'auth_sessions',
  'auth_attempts',
  'kyc_tenants',
  'kyc_api_keys',
  'kyc_verifications',
  'kyc_verification_events',
  'kyc_idempotency_keys',
  'kyc_quota_usage',
];

/**
 * Row counts of every table. In audit_log only the plugins' own rows count: the gate audits its warn
 * verdicts and sensitive accesses before any handler runs, which is not the request's write.
 */
async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const where = table === 'audit_log' ? " WHERE kind NOT LIKE 'api.%'" : '';
    const { rows } = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}${where}`);
    counts[table] = Number(rows[0]?.n);
  }
  return counts;
}

beforeAll(async () => {
  db = await createTestDatabase();
  const user = await userStore.insertLocal(
    db.pool,
    canonical('root@example.com'),
    await argon2.hash('x', ARGON2_PARAMS),
  );
  rootId = user?.id ?? '';
  await userStore.grantRole(db.pool, rootId, '*', 'test');
  const session = await sessionStore.create(db.pool, {
    userId: rootId,
    ttlSeconds: 3600,
    userAgent: null,
    ip: null,
    now: new Date(),
  });
  const issuer = await createSessionIssuer({
    secrets: [AUTH_SECRET],
    cookieName: COOKIE,
    clock: systemClock,
  });
  rootToken = await issuer.issue(
    { sub: rootId, email: 'root@example.com', roles: ['*'], sid: session.id },
    3600,
  );
  upstream = createServer((req, res) => {
    upstreamCalls++;
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const env = {
    GATEWAY_PLUGINS: 'auth,kyc',
    KYC_SANDBOX_DELAY_MS: '0',
    GATEWAY_UPSTREAMS: JSON.stringify([
      {
        prefix: '/api/v1/legacy',
        target: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      },
    ]),
  };
  enforce = await startTestGateway({ databaseUrl: db.url, env: { ...gateEnv('enforce'), ...env } });
  warn = await startTestGateway({ databaseUrl: db.url, env: { ...gateEnv('warn'), ...env } });
  const tenant = await call('POST', '/api/v1/admin/kyc/tenants', JSON.stringify({ name: 'Bytes Co' }));
  tenantId = ((await tenant.json()) as { id: string }).id;
  const key = await call('POST', `/api/v1/admin/kyc/tenants/${tenantId}/keys`, '{}');
  apiKey = ((await key.json()) as { key: string }).key;
});

afterAll(async () => {
  await enforce?.close();
  await warn?.close();
  await db?.drop();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

/** A dashboard's request for the root admin through the enforcing gateway: signed, session forwarded. */
function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return fetch(`${enforce.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      [SIGNATURE_HEADER]: sign({ method, url: path, body }),
      [SESSION_HEADER]: rootToken,
      ...headers,
    },
    body,
  });
}

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status, await res.clone().text()).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const body = (await res.json()) as { code: string; requestId: string; errors?: unknown };
  expect(body.code).toBe(code);
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  return body;
}

/** JSON texts whose one string field holds a NUL or an unpaired surrogate, written as JSON escapes. */
const BAD_TEXT = [
  ['a NUL', 'a\\u0000b'],
  ['a lone high surrogate', 'a\\ud800'],
  ['a lone low surrogate', '\\udc00b'],
] as const;

describe('text that PostgreSQL cannot store → 400 request.invalid_text, nothing written', () => {
  it.each(BAD_TEXT)('login email with %s', async (_name, bad) => {
    const before = await rowCounts();
    const res = await fetch(`${enforce.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":"root${bad}@example.com","password":"x"}`,
    });
    const problem = await expectProblem(res, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'body.email', message: expect.any(String) as unknown }]);
    expect(await rowCounts()).toEqual(before);
  });

  it.each(BAD_TEXT)('KYC tenant name with %s', async (_name, bad) => {
    const before = await rowCounts();
    const res = await call('POST', '/api/v1/admin/kyc/tenants', `{"name":"${bad}"}`);
    const problem = await expectProblem(res, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'body.name', message: expect.any(String) as unknown }]);
    expect(await rowCounts()).toEqual(before);
  });

  it('KYC tenant name with a raw unpaired surrogate in a UTF-16 body (no escape needed)', async () => {
    const before = await rowCounts();
    const body = Buffer.from('{"name":"a\ud800b"}', 'utf16le');
    const res = await fetch(`${enforce.url}/api/v1/admin/kyc/tenants`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-16le',
        [SIGNATURE_HEADER]: signatureHeader(INTERNAL_SECRET, Math.floor(Date.now() / 1000), {
          method: 'POST',
          url: '/api/v1/admin/kyc/tenants',
          body,
        }),
        [SESSION_HEADER]: rootToken,
      },
      body,
    });
    const problem = await expectProblem(res, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'body.name', message: expect.any(String) as unknown }]);
    expect(await rowCounts()).toEqual(before);
  });

  it.each(BAD_TEXT)('KYC tenant rename and key label with %s', async (_name, bad) => {
    const before = await rowCounts();
    const rename = await call('PATCH', `/api/v1/admin/kyc/tenants/${tenantId}`, `{"name":"${bad}"}`);
    await expectProblem(rename, 400, 'request.invalid_text');
    const label = await call('POST', `/api/v1/admin/kyc/tenants/${tenantId}/keys`, `{"label":"${bad}"}`);
    const problem = await expectProblem(label, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'body.label', message: expect.any(String) as unknown }]);
    expect(await rowCounts()).toEqual(before);
  });

  it.each(BAD_TEXT)('KYC initiate field with %s (after the API key check)', async (_name, bad) => {
    const before = await rowCounts();
    const body = `{"type":"INDIVIDUAL_KTP","subjectExternalRef":"${bad}"}`;
    const init = (key: string) =>
      fetch(`${enforce.url}/api/v1/kyc/initiate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body,
      });
    await expectProblem(await init('kyc_sandbox_wrong'), 401, 'kyc.api_key.invalid');
    const problem = await expectProblem(await init(apiKey), 400, 'request.invalid_text');
    expect(problem.errors).toEqual([
      { path: 'body.subjectExternalRef', message: expect.any(String) as unknown },
    ]);
    const inKey = await fetch(`${enforce.url}/api/v1/kyc/initiate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: `{"type":"INDIVIDUAL_KTP","subjectExternalRef":"ok","${bad}":1}`,
    });
    expect((await expectProblem(inKey, 400, 'request.invalid_text')).errors).toEqual([
      { path: 'body', message: expect.stringMatching(/^has a key that/) as unknown },
    ]);
    expect(await rowCounts()).toEqual(before);
  });

  it('a query parameter (the admin user search)', async () => {
    const res = await call('GET', '/api/v1/admin/users?search=ro%00ot');
    const problem = await expectProblem(res, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'query.search', message: expect.any(String) as unknown }]);
    const repeated = await call('GET', '/api/v1/admin/users?search=a&search=%00');
    expect((await expectProblem(repeated, 400, 'request.invalid_text')).errors).toEqual([
      { path: 'query.search.1', message: expect.any(String) as unknown },
    ]);
    expect((await call('GET', '/api/v1/admin/users?search=root')).status).toBe(200);
  });

  it('a path parameter (a role granted to a user)', async () => {
    const before = await rowCounts();
    const res = await call('PUT', `/api/v1/admin/users/${rootId}/roles/a%00b`);
    const problem = await expectProblem(res, 400, 'request.invalid_text');
    expect(problem.errors).toEqual([{ path: 'params.role', message: expect.any(String) as unknown }]);
    expect(await rowCounts()).toEqual(before);
  });

  it('is checked after the gate: an unauthenticated caller in enforce gets 401 first', async () => {
    const res = await fetch(`${enforce.url}/api/v1/admin/kyc/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a\\u0000"}',
    });
    await expectProblem(res, 401, 'api.auth.unauthenticated');
  });

  it('is not applied to proxied upstreams: their bytes pass through untouched', async () => {
    const before = upstreamCalls;
    const body = '{"note":"a\\u0000\\ud800"}';
    const res = await call('POST', '/api/v1/legacy/notes?q=%00', body);
    expect(res.status).toBe(200);
    expect(upstreamCalls).toBe(before + 1);
  });
});

describe('JSON nested deeper than 64 levels → 400 request.too_deep, before the gate', () => {
  const deep = (levels: number) => `{"name":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  it('on a plugin route, in enforce with credentials and without', async () => {
    const before = await rowCounts();
    await expectProblem(
      await call('POST', '/api/v1/admin/kyc/tenants', deep(10_000)),
      400,
      'request.too_deep',
    );
    const anonymous = await fetch(`${enforce.url}/api/v1/admin/kyc/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: deep(10_000),
    });
    await expectProblem(anonymous, 400, 'request.too_deep');
    expect(await rowCounts()).toEqual(before);
    // 63 levels of arrays inside the object make 64: allowed through to validation.
    await expectProblem(await call('POST', '/api/v1/admin/kyc/tenants', deep(63)), 400, 'validation.failed');
    await expectProblem(await call('POST', '/api/v1/admin/kyc/tenants', deep(64)), 400, 'request.too_deep');
  });

  it('on an unmatched path', async () => {
    for (const path of ['/api/v1/nothing/here', '/nothing/here']) {
      const res = await fetch(`${warn.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: deep(10_000),
      });
      await expectProblem(res, 400, 'request.too_deep');
    }
  });

  it('on a proxied upstream, which is never called', async () => {
    const before = upstreamCalls;
    await expectProblem(await call('POST', '/api/v1/legacy/notes', deep(10_000)), 400, 'request.too_deep');
    expect(upstreamCalls).toBe(before);
  });
});

describe('compressed bodies that do not decompress → 400 request.corrupt_encoding', () => {
  const json = Buffer.from('{"name":"Zipped Co"}');
  const corrupt = {
    gzip: zlib.gzipSync(json).subarray(0, 12),
    deflate: Buffer.from('this is not deflate data'),
    br: Buffer.from('this is not brotli data, not at all'),
  } as const;
  const paths = [
    ['gated', '/api/v1/admin/kyc/tenants'],
    ['exempt', '/api/v1/kyc/initiate'],
    ['unmatched under the gate', '/api/v1/nothing'],
    ['unmatched', '/nothing'],
  ] as const;
  const cases = (['enforce', 'warn'] as const).flatMap((mode) =>
    (['gzip', 'deflate', 'br'] as const).flatMap((encoding) =>
      paths.flatMap(([kind, path]) =>
        (['application/json', 'text/plain'] as const).map(
          (type) => [mode, encoding, kind, type, path] as const,
        ),
      ),
    ),
  );

  it.each(cases)('%s, %s, %s path, %s', async (mode, encoding, _kind, type, path) => {
    const before = await rowCounts();
    const res = await fetch(`${(mode === 'enforce' ? enforce : warn).url}${path}`, {
      method: 'POST',
      headers: { 'content-type': type, 'content-encoding': encoding, 'x-api-key': apiKey },
      body: corrupt[encoding],
    });
    await expectProblem(res, 400, 'request.corrupt_encoding');
    expect(await rowCounts()).toEqual(before);
  });

  it('a body that does decompress is read as usual', async () => {
    const body = zlib.brotliCompressSync(json);
    const res = await fetch(`${warn.url}/api/v1/admin/kyc/tenants`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'br',
        [SESSION_HEADER]: rootToken,
      },
      body,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'Zipped Co' });
  });

  it('an unknown encoding or charset is 415 request.unsupported_encoding', async () => {
    const cases: Array<Record<string, string>> = [
      { 'content-type': 'application/json', 'content-encoding': 'compress' },
      { 'content-type': 'application/json; charset=utf-nothing' },
      { 'content-type': 'application/json; charset=latin1' },
    ];
    for (const headers of cases) {
      const res = await fetch(`${warn.url}/api/v1/nothing`, { method: 'POST', headers, body: '{}' });
      await expectProblem(res, 415, 'request.unsupported_encoding');
    }
  });

  it('logs none of these failures as an internal error', () => {
    for (const gateway of [enforce, warn]) {
      expect(gateway.logs().filter((line) => line.msg === 'request failed' && line.level === 50)).toEqual([]);
    }
  });
});
