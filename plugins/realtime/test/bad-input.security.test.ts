/**
 * Hostile input to the realtime endpoint (README, "Errors"): plain HTTP requests to /socket.io/ with any
 * query, method and bytes; handshakes with any `auth` value; subscriptions with any body. Every refusal is a
 * problem with a stable code (problem+json over HTTP), never a 5xx, never a crash, and the socket or gateway
 * serves the next client as before.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { dashboardToken, RealtimeClient, realtimeEnv } from '../../../test/support/realtime.ts';

let db: TestDatabase;
let gateway: TestGateway;
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);

/** Strings that have broken servers: NULs, lone surrogates, control and format characters, long runs. */
const hostileText = fc.oneof(
  fc.string(),
  fc.constantFrom('\u0000', '\ud800', 'a\udfffb', '\u202e', '%00', '%ZZ', '../..', 'x'.repeat(5_000)),
  fc.string({ unit: 'binary' }),
);
/** Any JSON value, nested deeply sometimes. */
const anyJson = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }),
  fc
    .integer({ min: 50, max: 2_000 })
    .map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
  hostileText,
);

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url, env: realtimeEnv('enforce') });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

async function stillServes(): Promise<void> {
  const client = new RealtimeClient(gateway.url, {
    token: await dashboardToken({ sub: 'after', roles: ['*'] }),
  });
  try {
    await client.ready();
  } finally {
    client.close();
  }
}

describe('HTTP requests to /socket.io/', () => {
  it('any query and method: a 4xx problem with a realtime.transport code, or a transport answer; never 5xx', async () => {
    const query = fc.dictionary(
      fc.constantFrom('EIO', 'transport', 'sid', 't', 'j', 'b64', 'x'),
      fc.oneof(fc.constantFrom('4', '3', '5', 'polling', 'websocket', 'webtransport', ''), hostileText),
    );
    await fc.assert(
      fc.asyncProperty(
        query,
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'),
        async (params, method) => {
          const url = new URL(`${gateway.url}/socket.io/`);
          for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
          const res = await fetch(url, {
            method,
            body: method === 'POST' || method === 'PUT' ? '4\u0000x' : undefined,
          });
          const body = await res.text();
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
            expect((JSON.parse(body) as { code: string }).code).toMatch(
              /^realtime\.transport\.(invalid|forbidden)$/,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
    await stillServes();
  });
});

describe('handshakes', () => {
  it('any auth object: connected (a valid token), or refused with a problem of a documented code', async () => {
    const token = await dashboardToken({ sub: 'fuzz', roles: ['agent'] });
    // socket.io's protocol itself only carries an object here (anything else closes the connection).
    const auth = fc.oneof(
      fc.object({ maxDepth: 4 }),
      fc.dictionary(hostileText, anyJson, { maxKeys: 4 }),
      fc.record(
        { token: fc.oneof(hostileText, fc.constant(token)), lastEventId: anyJson, rooms: anyJson },
        { requiredKeys: [] },
      ),
      fc.record({ token: fc.constant(token), rooms: fc.array(hostileText, { maxLength: 5 }) }),
    );
    await fc.assert(
      fc.asyncProperty(auth, async (value) => {
        const client = new RealtimeClient(gateway.url, {});
        // Replace the client's auth with the hostile value, as a hand-written client could send it.
        (client.socket as unknown as { auth: unknown }).auth = value;
        client.socket.disconnect().connect();
        try {
          const outcome = await Promise.race([
            client.ready().then(() => 'ready' as const),
            client.refused().then((error) => error),
          ]);
          if (outcome !== 'ready') {
            expect(outcome.data?.code).toMatch(/^realtime\.(handshake\.invalid|unauthenticated)$/);
            expect(outcome.data?.status).toBeGreaterThanOrEqual(400);
          } else {
            for (const refusal of client.readies[0]?.refused ?? []) {
              expect(refusal.code).toMatch(/^realtime\.room\.(invalid|forbidden|limit)$/);
            }
          }
        } finally {
          client.close();
        }
      }),
      { numRuns: RUNS },
    );
    await stillServes();
  });
});

describe('subscribe and unsubscribe', () => {
  it('any body: an answer (joined, refused with a room code) or realtime.request.invalid; the socket stays', async () => {
    const client = new RealtimeClient(gateway.url, {
      token: await dashboardToken({ sub: 'fuzz-sub', roles: ['agent'] }),
    });
    await client.ready();
    const body = fc.oneof(
      anyJson,
      fc.record(
        { rooms: fc.array(hostileText, { maxLength: 8 }), since: anyJson },
        { requiredKeys: ['rooms'] },
      ),
    );
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('subscribe', 'unsubscribe'), body, async (event, value) => {
          const answer = await client.emit<{
            error?: { code: string };
            refused?: Array<{ code: string }>;
            rooms?: string[];
          }>(event, value);
          if (answer.error) expect(answer.error.code).toBe('realtime.request.invalid');
          else {
            expect(Array.isArray(answer.rooms)).toBe(true);
            for (const refusal of answer.refused ?? []) {
              expect(refusal.code).toMatch(/^realtime\.room\.(invalid|forbidden|limit)$/);
            }
          }
          expect(client.socket.connected).toBe(true);
        }),
        { numRuns: RUNS },
      );
    } finally {
      client.close();
    }
    await stillServes();
  });
});
