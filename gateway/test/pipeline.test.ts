/**
 * The request pipeline through its public surface: the order of its nine steps (ADR 0003), problem+json for
 * every error (docs/errors.md), request ids, security headers, CORS, raw body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: { CORS_ORIGINS: 'https://dashboard.example.com,http://localhost:3000' },
  });
});

afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function problem(res: Response) {
  expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status: res.status, type: `urn:gatehouse:problem:${String(body.code)}` });
  expect(typeof body.title).toBe('string');
  expect(typeof body.detail).toBe('string');
  expect(body.requestId).toBe(res.headers.get('x-request-id'));
  return body;
}

describe('order of the pipeline steps', () => {
  it('runs layer 1, layer 2, sensitive audit, then the handler', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, json({ name: 'Ada', age: 36 }));
    expect(res.status).toBe(201);
    expect(res.headers.get('x-fixture-trace')).toBe('layer1, layer2, audit, handler');
  });

  it('a request failing at layer 1 never reaches body validation or the handler', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      ...json({ name: '', age: -1 }),
      headers: { 'content-type': 'application/json', 'x-fixture-deny': '1' },
    });
    expect(res.status).toBe(401);
    expect((await problem(res)).code).toBe('fixture.denied');
    expect(res.headers.get('x-fixture-trace')).toBe('layer1');
  });

  it('malformed JSON is rejected at step 3, before the gates, yet carries a request id', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fixture-deny': '1' },
      body: '{"name": "Ada",',
    });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe('request.malformed_json');
    expect(res.headers.get('x-fixture-trace')).toBeNull();
  });

  it('a 413 carries the security headers, a request id and an access-log line', async () => {
    const huge = `{"name":"${'x'.repeat(50 * 1024 * 1024)}","age":1}`;
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'too-large-1' },
      body: huge,
    });
    expect(res.status).toBe(413);
    const body = await problem(res);
    expect(body.code).toBe('request.too_large');
    expect(body.requestId).toBe('too-large-1');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    expect(res.headers.get('strict-transport-security')).toContain('max-age=31536000');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await expect
      .poll(() => gateway.logs().find((line) => line.reqId === 'too-large-1'))
      .toMatchObject({
        status: 413,
        route: '/fixture/echo',
        msg: 'request',
      });
  });
});

describe('errors are problem+json', () => {
  it('unknown route → 404 request.not_found', async () => {
    const res = await fetch(`${gateway.url}/no/such/route`);
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe('request.not_found');
  });

  it('schema failure → 400 validation.failed listing every issue', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, json({ name: '', age: 'old', extra: true }));
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.code).toBe('validation.failed');
    const errors = body.errors as Array<{ path: string; message: string }>;
    expect(errors.map((e) => e.path).sort()).toEqual(['body.age', 'body.name']);
    for (const e of errors) expect(e.message.length).toBeGreaterThan(0);
  });

  it('path parameters are validated too', async () => {
    const res = await fetch(`${gateway.url}/fixture/things/abc`);
    expect(res.status).toBe(400);
    const body = await problem(res);
    expect(body.errors).toEqual([{ path: 'params.id', message: 'must be numeric' }]);
    expect(await (await fetch(`${gateway.url}/fixture/things/42`)).json()).toEqual({ id: '42' });
  });

  it('a body that is not JSON fails validation instead of reaching the handler', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'POST',
      body: 'name=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect((await problem(res)).code).toBe('validation.failed');
  });

  it.each([
    ['malformed JSON (the body step)', '{"fail":', {}, 400, 'request.malformed_json'],
    ['a failed gate slot', '{"fail":false}', { 'x-fixture-deny': '1' }, 401, 'fixture.denied'],
    ['text that cannot be stored', '{"fail":"a\\u0000b"}', {}, 400, 'request.invalid_text'],
    ['a failed validation', '{"fail":"yes"}', {}, 400, 'validation.failed'],
    ['the handler', '{"fail":true}', {}, 401, 'fixture.denied'],
  ])(
    'a route with its own error format answers %s in it, not in problem+json',
    async (_what, body, headers, status, code) => {
      const res = await fetch(`${gateway.url}/fixture/own-errors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'own-format', ...headers },
        body,
      });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/vnd.fixture-error+json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toBe('own-format');
      expect(await res.json()).toEqual({ fault: code, status: String(status), requestId: 'own-format' });
    },
  );

  it('a path no route matches stays problem+json beside a route with its own format', async () => {
    const res = await fetch(`${gateway.url}/fixture/own-errors/nothing`, json({ fail: true }));
    expect(res.status).toBe(404);
    expect((await problem(res)).code).toBe('request.not_found');
  });

  it.each(['/fixture/throw', '/fixture/reject'])(
    '%s: a thrown error → 500 internal with no details; logged with the request id',
    async (path) => {
      const res = await fetch(`${gateway.url}${path}`, {
        headers: { 'x-request-id': `boom-${path.slice(9)}` },
      });
      expect(res.status).toBe(500);
      const text = await res.clone().text();
      const body = await problem(res);
      expect(body).toEqual({
        type: 'urn:gatehouse:problem:internal',
        title: 'Internal server error',
        status: 500,
        detail: 'Internal server error',
        code: 'internal',
        requestId: `boom-${path.slice(9)}`,
      });
      expect(text).not.toMatch(/hunter2|postgres:|secret|\bat\s.+:\d+:\d+|Error/);
      await expect
        .poll(() =>
          gateway
            .logs()
            .find((line) => line.reqId === `boom-${path.slice(9)}` && line.msg === 'request failed'),
        )
        .toMatchObject({
          level: 50,
          err: { stack: expect.stringContaining('fixture-plugin.ts') as unknown },
        });
    },
  );
});

describe('request id (a contract with clients and log readers)', () => {
  it('keeps a safe incoming id and echoes it', async () => {
    const res = await fetch(`${gateway.url}/health`, { headers: { 'x-request-id': 'abc-123_XYZ.9:a@b' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123_XYZ.9:a@b');
  });

  it.each([['x'.repeat(129)], ['has space'], ['<script>'], ['a\tb']])(
    'replaces an unsafe id %#',
    async (id) => {
      const res = await fetch(`${gateway.url}/health`, { headers: { 'x-request-id': id } });
      const echoed = res.headers.get('x-request-id');
      expect(echoed).not.toBe(id);
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    },
  );

  it('appears in the access log line of the request', async () => {
    await fetch(`${gateway.url}/fixture/things/7`, { headers: { 'x-request-id': 'log-line-1' } });
    await expect
      .poll(() => gateway.logs().find((line) => line.reqId === 'log-line-1'))
      .toMatchObject({
        method: 'GET',
        route: '/fixture/things/:id',
        status: 200,
        durationMs: expect.any(Number) as unknown,
      });
  });
});

describe('security headers and CORS', () => {
  it('sends the API security headers and no X-Powered-By', async () => {
    const res = await fetch(`${gateway.url}/`);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('allows a listed origin with credentials and exposes X-Request-Id', async () => {
    const res = await fetch(`${gateway.url}/health`, {
      headers: { origin: 'https://dashboard.example.com' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('https://dashboard.example.com');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it('does not allow an unlisted origin', async () => {
    const res = await fetch(`${gateway.url}/health`, { headers: { origin: 'https://evil.example.net' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers a preflight for a listed origin with the gate headers allowed', async () => {
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': `content-type,${SESSION_HEADER}`,
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(res.headers.get('access-control-allow-headers')).toContain('X-Forwarded-Session');
    expect(res.headers.get('access-control-allow-headers')).toContain('X-Internal-Signature');
  });
});

describe('body parsing', () => {
  it('keeps the exact raw bytes of a JSON body', async () => {
    const raw = '{ "name" : "Zoë",   "age": 3 }';
    const res = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    const { createHash } = await import('node:crypto');
    expect(await res.json()).toEqual({
      body: { name: 'Zoë', age: 3 },
      rawSha256: createHash('sha256').update(Buffer.from(raw)).digest('hex'),
    });
  });

  it('answers HEAD for GET routes without a body', async () => {
    const res = await fetch(`${gateway.url}/health`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});
