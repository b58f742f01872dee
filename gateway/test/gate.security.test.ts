/**
 * Security properties of the API gate (ADR 0004): rotation, real Auth.js tokens and what must not pass,
 * revocation, what the signature covers, the token cache's expiry, sensitive-access audit, and a flood of
 * failures that must not flood audit_log.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../src/clock.ts';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import {
  AUTH_SECRET,
  AUTH_SECRET_OLD,
  COOKIE,
  gateEnv,
  gateHeaders,
  INTERNAL_SECRET,
  INTERNAL_SECRET_NEXT,
  mintSession,
  sign,
} from '../../test/support/gate.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';
import { SESSION_HEADER } from '../src/gate/gate.ts';
import { SIGNATURE_HEADER } from '../src/gate/hmac.ts';

const PATH = '/api/v1/gate/identity';
let db: TestDatabase;
let gateway: TestGateway;
const clock = createManualClock(Date.now());

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: gateEnv('enforce'), clock });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

const now = () => Math.floor(clock.nowMs() / 1000);
const get = async (path: string, headers: Record<string, string>) =>
  fetch(`${gateway.url}${path}`, { headers });

async function reasonsFor(requestId: string): Promise<string[]> {
  await gateway.audit.flush();
  const { rows } = await db.pool.query<{ r: string }>(
    "SELECT kind || ':' || (payload->>'reason') AS r FROM audit_log WHERE request_id = $1 ORDER BY r",
    [requestId],
  );
  return rows.map((row) => row.r);
}

describe('layer 1: internal HMAC', () => {
  it('accepts either of two rotating secrets, not a third', async () => {
    const session = await mintSession();
    for (const secret of [INTERNAL_SECRET, INTERNAL_SECRET_NEXT]) {
      const res = await get(PATH, {
        [SIGNATURE_HEADER]: sign({ method: 'GET', url: PATH, secret, at: now() }),
        [SESSION_HEADER]: session,
      });
      expect(res.status).toBe(200);
    }
    const third = await get(PATH, {
      'x-request-id': 'third-secret',
      [SIGNATURE_HEADER]: sign({
        method: 'GET',
        url: PATH,
        secret: 'a-third-secret-nobody-configured-0123456',
        at: now(),
      }),
      [SESSION_HEADER]: session,
    });
    expect(third.status).toBe(401);
    expect(await reasonsFor('third-secret')).toEqual(['api.auth.hmac_failed:mismatch']);
  });

  it('tells a malformed header apart from a mismatch (audit only)', async () => {
    const res = await get(PATH, { 'x-request-id': 'malformed-sig', [SIGNATURE_HEADER]: 'v1=abc,t=now' });
    expect(res.status).toBe(401);
    expect(await reasonsFor('malformed-sig')).toEqual(['api.auth.hmac_failed:malformed']);
  });

  it('covers the method, the query string and the exact body bytes, of any content type', async () => {
    const session = await mintSession();
    const signedGet = sign({ method: 'GET', url: `${PATH}?a=1`, at: now() });
    expect(
      (await get(`${PATH}?a=1`, { [SIGNATURE_HEADER]: signedGet, [SESSION_HEADER]: session })).status,
    ).toBe(200);
    expect(
      (await get(`${PATH}?a=2`, { [SIGNATURE_HEADER]: signedGet, [SESSION_HEADER]: session })).status,
    ).toBe(401);

    const body = 'plain text, not JSON';
    const post = (signature: string, sent: string) =>
      fetch(`${gateway.url}/fixture/raw`, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain',
          [SIGNATURE_HEADER]: signature,
          [SESSION_HEADER]: session,
        },
        body: sent,
      });
    const good = await post(sign({ method: 'POST', url: '/fixture/raw', body, at: now() }), body);
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ bytes: body.length, parsed: false });
    // A signature made for an empty body cannot carry a body added later.
    expect((await post(sign({ method: 'POST', url: '/fixture/raw', at: now() }), body)).status).toBe(401);
    expect((await post(sign({ method: 'PUT', url: '/fixture/raw', body, at: now() }), body)).status).toBe(
      401,
    );
  });

  it('tolerates ±300 s of clock skew, no more', async () => {
    const session = await mintSession();
    for (const [offset, status] of [
      [-300, 200],
      [300, 200],
      [-301, 401],
      [301, 401],
    ] as const) {
      const res = await get(PATH, {
        [SIGNATURE_HEADER]: sign({ method: 'GET', url: PATH, at: now() + offset }),
        [SESSION_HEADER]: session,
      });
      expect(res.status, `offset ${offset}`).toBe(status);
    }
  });
});

describe('layer 2: forwarded Auth.js session', () => {
  const withSession = (token: string, requestId: string) =>
    get(PATH, {
      'x-request-id': requestId,
      [SIGNATURE_HEADER]: sign({ method: 'GET', url: PATH, at: now() }),
      [SESSION_HEADER]: token,
    });

  it('accepts a token made by @auth/core encode() with the configured secret and salt', async () => {
    const res = await withSession(
      await mintSession({ claims: { sub: 'u-9', email: null, roles: ['admin', 'agent'] } }),
      'authjs-ok',
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      identity: { sub: 'u-9', email: null, roles: ['admin', 'agent'], sid: 'sid-1' },
    });
  });

  it('accepts a token made with the secret being rotated out', async () => {
    expect((await withSession(await mintSession({ secret: AUTH_SECRET_OLD }), 'authjs-old')).status).toBe(
      200,
    );
  });

  it('refuses a token made with another secret or another salt', async () => {
    expect(
      (await withSession(await mintSession({ secret: 'someone-elses-auth-secret' }), 'other-secret')).status,
    ).toBe(401);
    expect(
      (await withSession(await mintSession({ salt: '__Secure-authjs.session-token' }), 'other-salt')).status,
    ).toBe(401);
    expect(await reasonsFor('other-secret')).toEqual(['api.auth.session_failed:invalid']);
    // The second identical failure (same reason, route, client) in this minute is counted into the
    // window's summary row instead of getting its own (see the flood test below).
    expect(await reasonsFor('other-salt')).toEqual([]);
  });

  it('accepts A256GCM as Auth.js decode does', async () => {
    const key = new Uint8Array(
      hkdfSync('sha256', AUTH_SECRET, COOKIE, `Auth.js Generated Encryption Key (${COOKIE})`, 32),
    );
    const token = await new EncryptJWT({ sub: 'gcm-user', roles: ['viewer'] })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setIssuedAt()
      .setExpirationTime('1h')
      .encrypt(key);
    const res = await withSession(token, 'gcm');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ identity: { sub: 'gcm-user', roles: ['viewer'] } });
  });

  it('refuses garbage, a plain signed JWT, and a token without a subject', async () => {
    expect((await withSession('not-a-token', 'garbage')).status).toBe(401);
    expect((await withSession('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 'jws')).status).toBe(401);
    expect((await withSession(await mintSession({ claims: { sub: undefined } }), 'no-sub')).status).toBe(401);
    expect(await reasonsFor('garbage')).toEqual(['api.auth.session_failed:malformed']);
    expect(await reasonsFor('no-sub')).toEqual(['api.auth.session_failed:claims']);
  });

  it('rejects a session a plugin reports as revoked, on every request, cached or not', async () => {
    const revoked = await mintSession({ claims: { sid: 'revoked-sid' } });
    expect((await withSession(revoked, 'revoked-1')).status).toBe(401);
    expect((await withSession(revoked, 'revoked-2')).status).toBe(401);
    expect(await reasonsFor('revoked-1')).toEqual(['api.auth.session_failed:revoked']);
  });

  it('a cached token still expires when the clock passes its exp', async () => {
    // The token's exp comes from the real clock: the gateway's clock starts from the same instant, however
    // long the tests before this one took on a busy machine.
    clock.set(Date.now());
    const token = await mintSession({ maxAge: 120 });
    expect((await withSession(token, 'cache-1')).status).toBe(200);
    expect((await withSession(token, 'cache-2')).status).toBe(200);
    clock.advance(120_000 + 16_000);
    try {
      expect((await withSession(token, 'cache-3')).status).toBe(401);
      expect(await reasonsFor('cache-3')).toEqual(['api.auth.session_failed:expired']);
    } finally {
      clock.set(Date.now());
    }
  });
});

describe('sensitive-access audit', () => {
  it('writes api.access.sensitive with the identity for writes and for routes declared sensitive', async () => {
    const body = JSON.stringify({ name: 'Ada', age: 3 });
    const post = await fetch(`${gateway.url}/fixture/echo`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': 'sensitive-post',
        ...(await gateHeaders('POST', '/fixture/echo', body)),
      },
      body,
    });
    expect(post.status).toBe(201);
    const read = await get('/fixture/sensitive', {
      'x-request-id': 'sensitive-get',
      ...(await gateHeaders('GET', '/fixture/sensitive')),
    });
    expect(read.status).toBe(200);
    const plain = await get('/fixture/things/1', {
      'x-request-id': 'not-sensitive',
      ...(await gateHeaders('GET', '/fixture/things/1')),
    });
    expect(plain.status).toBe(200);
    await gateway.audit.flush();
    const { rows } = await db.pool.query(
      "SELECT request_id, actor, payload FROM audit_log WHERE kind = 'api.access.sensitive' AND request_id IN ('sensitive-post', 'sensitive-get', 'not-sensitive') ORDER BY request_id",
    );
    expect(rows).toEqual([
      {
        request_id: 'sensitive-get',
        actor: 'user-42',
        payload: {
          mode: 'enforce',
          method: 'GET',
          route: '/fixture/sensitive',
          owner: 'fixture',
          email: 'ada@example.com',
          roles: ['agent'],
          sid: 'sid-1',
        },
      },
      {
        request_id: 'sensitive-post',
        actor: 'user-42',
        payload: {
          mode: 'enforce',
          method: 'POST',
          route: '/fixture/echo',
          owner: 'fixture',
          email: 'ada@example.com',
          roles: ['agent'],
          sid: 'sid-1',
        },
      },
    ]);
  });

  it('never stores the token, the signature or the secret', async () => {
    await gateway.audit.flush();
    const { rows } = await db.pool.query<{ dump: string }>(
      "SELECT string_agg(payload::text, ' ') AS dump FROM audit_log",
    );
    const dump = rows[0]?.dump ?? '';
    expect(dump).not.toContain('eyJ');
    expect(dump).not.toContain(INTERNAL_SECRET);
    expect(dump).not.toContain(AUTH_SECRET);
    expect(dump).not.toMatch(/v1=[0-9a-f]{16}/);
  });
});

describe('a flood of failures in warn mode', () => {
  it('10,000 failing requests from one client produce a handful of rows whose counts add up', async () => {
    const floodDb = await createTestDatabase();
    const warn = await startTestGateway({
      databaseUrl: floodDb.url,
      env: { ...gateEnv('warn'), LOG_LEVEL: 'warn' },
    });
    try {
      const total = 10_000;
      let next = 0;
      const worker = async () => {
        while (next < total) {
          next++;
          const res = await fetch(`${warn.url}${PATH}`);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
    } finally {
      // Shutdown writes the summaries of the windows still open.
      await warn.close();
    }
    const { rows } = await floodDb.pool.query<{ kind: string; reason: string; rows: number; total: number }>(
      `SELECT kind, payload->>'reason' AS reason, count(*)::int AS rows, sum((payload->>'count')::int)::int AS total
         FROM audit_log GROUP BY kind, payload->>'reason' ORDER BY kind`,
    );
    await floodDb.drop();
    expect(rows.map(({ kind, reason, total }) => ({ kind, reason, total }))).toEqual([
      { kind: 'api.auth.hmac_failed', reason: 'missing', total: 10_000 },
      { kind: 'api.auth.session_failed', reason: 'missing', total: 10_000 },
    ]);
    // One row at the first failure and one summary per minute window the flood touched.
    for (const row of rows) expect(row.rows).toBeLessThanOrEqual(4);
  });
});
