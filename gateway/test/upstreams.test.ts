/**
 * GATEWAY_UPSTREAMS (docs/api-auth-gate.md, "Upstream proxies"): an existing service behind the gate, tested
 * against a real upstream HTTP server on loopback.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BootError } from '../src/boot-error.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { gateEnv, gateHeaders, mintSession, sign } from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { freePort } from '../../test/support/process.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';
import { SIGNATURE_HEADER } from '../src/gate/hmac.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];
const held: Array<() => void> = [];
let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.url?.startsWith('/slow')) {
        // Never answers on its own: the gateway's timeout must fire first.
        held.push(() => res.end());
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      res.end(JSON.stringify({ ok: true, url: req.url }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const closedPort = await freePort();
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      ...gateEnv('enforce'),
      UPSTREAM_TIMEOUT_MS: '300',
      GATEWAY_UPSTREAMS: JSON.stringify([
        { prefix: '/api/v1/legacy', target: upstreamUrl, stripPrefix: true },
        { prefix: '/public/legacy', target: upstreamUrl, exempt: true },
        { prefix: '/api/v1/down', target: `http://127.0.0.1:${closedPort}` },
      ]),
    },
  });
});

afterAll(async () => {
  for (const release of held) release();
  await gateway?.close();
  await db?.drop();
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const last = () => seen.at(-1) as Seen;

describe('proxied routes', () => {
  it('forward the identity, the request id and the exact body; strip the prefix; drop spoofed identity headers', async () => {
    const body = JSON.stringify({ lead: 'Ada', note: 'ünïcode' });
    const res = await fetch(`${gateway.url}/api/v1/legacy/leads/7?expand=1`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'proxy-1',
        'x-gatehouse-user': 'admin',
        'X-Gatehouse-Roles': 'superuser',
        'x-gatehouse-anything': 'spoofed',
        ...(await gateHeaders('POST', '/api/v1/legacy/leads/7?expand=1', body)),
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(await res.json()).toEqual({ ok: true, url: '/leads/7?expand=1' });
    const request = last();
    expect(request).toMatchObject({ method: 'POST', url: '/leads/7?expand=1', body });
    expect(request.headers['x-gatehouse-user']).toBe('user-42');
    expect(request.headers['x-gatehouse-roles']).toBe('agent');
    expect(request.headers['x-gatehouse-anything']).toBeUndefined();
    expect(request.headers['x-request-id']).toBe('proxy-1');
    expect(request.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    // The gate's credentials stay at the gate.
    expect(request.headers[SESSION_HEADER]).toBeUndefined();
    expect(request.headers[SIGNATURE_HEADER]).toBeUndefined();
  });

  it('a compressed body reaches the upstream as the bytes the gate checked, framed by their own length', async () => {
    // The body is decompressed before the gate reads it; sending those bytes under the client's
    // Content-Encoding and compressed length would make the upstream decode twice, or wait for bytes
    // that never come (an empty body compresses to 8 bytes).
    const body = JSON.stringify({ lead: 'Ada' });
    for (const [encoding, compressed, expected] of [
      ['gzip', gzipSync(body), body],
      ['deflate', deflateSync(''), ''],
    ] as const) {
      const res = await fetch(`${gateway.url}/public/legacy/compressed`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: compressed,
      });
      expect(res.status).toBe(200);
      const request = last();
      expect(request.body).toBe(expected);
      expect(request.headers['content-encoding']).toBeUndefined();
      expect(request.headers['content-length']).toBe(String(Buffer.byteLength(expected)));
    }
  });

  it('forwarding headers come from the gateway, not from the client (TRUST_PROXY off)', async () => {
    const res = await fetch(`${gateway.url}/public/legacy/who`, {
      headers: { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.example', forwarded: 'for=6.6.6.6' },
    });
    expect(res.status).toBe(200);
    const { headers } = last();
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe('127.0.0.1');
    expect(headers.forwarded).toBeUndefined();
  });

  it('are gated: without credentials in enforce mode the upstream is never called', async () => {
    const before = seen.length;
    const res = await fetch(`${gateway.url}/api/v1/legacy/leads`);
    expect(res.status).toBe(401);
    expect(seen.length).toBe(before);
  });

  it('an exempt upstream is reached without credentials, still without spoofed identity', async () => {
    const res = await fetch(`${gateway.url}/public/legacy/info`, {
      headers: { 'x-gatehouse-user': 'admin' },
    });
    expect(res.status).toBe(200);
    expect(last()).toMatchObject({ url: '/public/legacy/info' });
    expect(last().headers['x-gatehouse-user']).toBeUndefined();
  });

  it('upstream down → 502 gateway.upstream_unavailable', async () => {
    const res = await fetch(`${gateway.url}/api/v1/down/anything`, {
      headers: await gateHeaders('GET', '/api/v1/down/anything'),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await res.json()).toMatchObject({ code: 'gateway.upstream_unavailable', status: 502 });
  });

  it('slow upstream → 504 gateway.upstream_timeout after UPSTREAM_TIMEOUT_MS', async () => {
    const started = performance.now();
    const res = await fetch(`${gateway.url}/api/v1/legacy/slow`, {
      headers: await gateHeaders('GET', '/api/v1/legacy/slow'),
    });
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ code: 'gateway.upstream_timeout', status: 504 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('an upstream prefix that collides with a plugin route refuses boot', async () => {
    await expect(
      startTestGateway({
        databaseUrl: db.url,
        env: { GATEWAY_UPSTREAMS: JSON.stringify([{ prefix: '/health', target: upstreamUrl }]) },
      }),
    ).rejects.toThrow(BootError);
  });
});

describe('header spellings (CGI, WSGI, PHP and nginx read `_` as `-`)', () => {
  const spoofed = {
    X_Gatehouse_User: 'admin',
    x_gatehouse_roles: '*',
    'X-Gatehouse_Anything': 'spoofed',
    X_Forwarded_Session: 'a-session-token',
    X_Internal_Signature: 'a-signature',
    X_Forwarded_For: '6.6.6.6',
    x_forwarded_host: 'evil.example',
    X_Request_Id: 'spoofed-id',
    Transfer_Encoding: 'chunked',
  };
  const names = Object.keys(spoofed).map((name) => name.toLowerCase());

  it('no spelling of the identity, credential, forwarding or owned headers reaches the upstream; other `_` headers are dropped by default', async () => {
    const res = await fetch(`${gateway.url}/api/v1/legacy/spelling`, {
      headers: {
        ...spoofed,
        Custom_Header: 'underscored',
        'Custom-Header': 'dashed',
        'x-request-id': 'spelling-1',
        ...(await gateHeaders('GET', '/api/v1/legacy/spelling')),
      },
    });
    expect(res.status).toBe(200);
    const { headers } = last();
    for (const name of [...names, 'custom_header']) expect(headers[name], name).toBeUndefined();
    expect(headers['custom-header']).toBe('dashed');
    expect(headers['x-gatehouse-user']).toBe('user-42');
    expect(headers['x-gatehouse-roles']).toBe('agent');
    expect(headers['x-request-id']).toBe('spelling-1');
    expect(headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('UPSTREAM_UNDERSCORE_HEADERS=keep passes other `_` headers, never those spellings', async () => {
    const keeping = await startTestGateway({
      databaseUrl: db.url,
      env: {
        UPSTREAM_UNDERSCORE_HEADERS: 'keep',
        GATEWAY_UPSTREAMS: JSON.stringify([{ prefix: '/kept', target: upstreamUrl, exempt: true }]),
      },
    });
    try {
      const res = await fetch(`${keeping.url}/kept/spelling`, {
        headers: { ...spoofed, Custom_Header: 'underscored' },
      });
      expect(res.status).toBe(200);
      const { headers } = last();
      for (const name of names) expect(headers[name], name).toBeUndefined();
      expect(headers.custom_header).toBe('underscored');
      expect(headers['x-gatehouse-user']).toBeUndefined();
    } finally {
      await keeping.close();
    }
  });

  it('refuses an unknown UPSTREAM_UNDERSCORE_HEADERS at boot', async () => {
    await expect(
      startTestGateway({ databaseUrl: db.url, env: { UPSTREAM_UNDERSCORE_HEADERS: 'allow' } }),
    ).rejects.toThrow(/UPSTREAM_UNDERSCORE_HEADERS: must be one of: drop, keep/);
  });
});

describe('identity text in the headers an upstream receives', () => {
  const call = async (claims: Record<string, unknown>) => {
    const url = '/api/v1/legacy/identity-text';
    return fetch(`${gateway.url}${url}`, {
      headers: {
        [SIGNATURE_HEADER]: sign({ method: 'GET', url }),
        [SESSION_HEADER]: await mintSession({ claims }),
      },
    });
  };

  it('a sub and roles beyond ASCII arrive as their UTF-8 bytes', async () => {
    const res = await call({ sub: '用户', roles: ['ädmin', 'agent'] });
    expect(res.status).toBe(200);
    const { headers } = last();
    const utf8 = (value: unknown) => Buffer.from(String(value), 'latin1').toString('utf8');
    expect(utf8(headers['x-gatehouse-user'])).toBe('用户');
    expect(utf8(headers['x-gatehouse-roles'])).toBe('ädmin,agent');
  });

  it('a token whose claims hold control characters or unpaired surrogates is refused, and the gateway lives on', async () => {
    const before = seen.length;
    for (const claims of [
      { sub: 'user\u0000' },
      { sub: 'user\u0007' },
      { sub: 'user\ud800' },
      { roles: ['agent\r\nX-Injected: 1'] },
      { email: 'a\u0000@example.com' },
    ]) {
      const res = await call(claims);
      expect(res.status, JSON.stringify(claims)).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'api.auth.unauthenticated' });
    }
    expect(seen.length).toBe(before);
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  });
});
