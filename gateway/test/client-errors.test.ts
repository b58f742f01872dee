/**
 * Requests node:http refuses before the pipeline runs are answered in the gateway's own format
 * (docs/errors.md): problem+json with a stable code, the pipeline's security headers, a request id and
 * `Connection: close`. Sent as raw bytes over TCP, since no HTTP client would send them.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../test/support/gateway.ts';

let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  db = await createTestDatabase();
  gateway = await startTestGateway({ databaseUrl: db.url });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `bytes` on a fresh connection and reads until the server closes it. */
function exchange(bytes: string | Buffer, options: { halfClose?: boolean } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(bytes);
      if (options.halfClose) socket.end();
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

async function expectRefusal(bytes: string | Buffer, status: number, code: string, halfClose = false) {
  const res = await exchange(bytes, { halfClose });
  expect(res.status, JSON.stringify(res)).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  expect(res.headers.connection).toBe('close');
  expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-powered-by']).toBeUndefined();
  const requestId = res.headers['x-request-id'] ?? '';
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const problem = JSON.parse(res.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ type: `urn:gatehouse:problem:${code}`, status, code, requestId });
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  await expect
    .poll(() => gateway.logs().find((line) => line.reqId === requestId))
    .toMatchObject({ msg: 'request refused by the HTTP parser', status, code });
  return problem;
}

const HOST = 'Host: gatehouse.test\r\n';

describe('requests refused by the HTTP parser', () => {
  it('a 20,000-character path → 414 request.uri_too_long', async () => {
    await expectRefusal(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\n${HOST}\r\n`, 414, 'request.uri_too_long');
  });

  it('a 24 KB query string → 414 request.uri_too_long', async () => {
    await expectRefusal(
      `GET /health?${'q'.repeat(24 * 1024)} HTTP/1.1\r\n${HOST}\r\n`,
      414,
      'request.uri_too_long',
    );
  });

  it('5,000 query parameters → 414 request.uri_too_long', async () => {
    const query = Array.from({ length: 5_000 }, (_, i) => `p${i}=1`).join('&');
    await expectRefusal(`GET /health?${query} HTTP/1.1\r\n${HOST}\r\n`, 414, 'request.uri_too_long');
  });

  it('a HEAD refused for its length gets the head of the answer only: no body a client would misread', async () => {
    const res = await exchange(`HEAD /${'a'.repeat(20_000)} HTTP/1.1\r\n${HOST}\r\n`);
    expect(res.status).toBe(414);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toBe('');
  });

  it('a 20 KB header → 431 request.headers_too_large', async () => {
    await expectRefusal(
      `GET /health HTTP/1.1\r\n${HOST}X-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
      'request.headers_too_large',
    );
  });

  it.each([
    ['an unknown method', `FOO / HTTP/1.1\r\n${HOST}\r\n`],
    ['bare LF line ends', 'GET / HTTP/1.1\nHost: gatehouse.test\n\n'],
    [
      'raw non-ASCII bytes in the path',
      Buffer.concat([
        Buffer.from('GET /caf'),
        Buffer.from([0xc3, 0xa9]),
        Buffer.from(` HTTP/1.1\r\n${HOST}\r\n`),
      ]),
    ],
    ['a NUL in a header value', `GET / HTTP/1.1\r\n${HOST}User-Agent: a\u0000b\r\n\r\n`],
    [
      'Content-Length beside Transfer-Encoding',
      `POST /fixture/raw HTTP/1.1\r\n${HOST}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    ],
    [
      'a broken chunk size, after the request was handed over',
      `POST /fixture/raw HTTP/1.1\r\n${HOST}Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    ],
    [
      'TLS bytes on the plain port',
      Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]),
    ],
  ])('%s → 400 request.malformed', async (_name, bytes) => {
    await expectRefusal(bytes, 400, 'request.malformed');
  });

  it('a client that closes its side in the middle of a body → 400 request.malformed', async () => {
    const head = `POST /fixture/raw HTTP/1.1\r\n${HOST}Content-Type: text/plain\r\nContent-Length: 20\r\n\r\nabc`;
    const problem = await expectRefusal(head, 400, 'request.malformed', true);
    expect(problem.detail).toBe('The connection ended in the middle of a request');
  });

  it('bytes past Content-Length start a second request the parser refuses; the first one is abandoned', async () => {
    const bytes = `POST /fixture/echo HTTP/1.1\r\n${HOST}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}garbage`;
    const problem = await expectRefusal(bytes, 400, 'request.malformed');
    expect(problem.detail).toBe('The request does not start with a known HTTP method');
  });

  it('a connection reset mid-head is closed quietly, and the gateway serves on', async () => {
    const { hostname, port } = new URL(gateway.url);
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write('GET /health HTTP/1.1\r\nHost: gate');
        setImmediate(() => {
          socket.resetAndDestroy();
          resolve();
        });
      });
    });
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    expect(gateway.logs().filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});
