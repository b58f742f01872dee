import { describe, expect, it } from 'vitest';
import { refusalFor } from './client-error.ts';

const error = (code: string, rawPacket?: string) =>
  Object.assign(new Error(code), {
    code,
    rawPacket: rawPacket === undefined ? undefined : Buffer.from(rawPacket),
  });

describe('refusalFor', () => {
  it('tells an over-long request line (414) from an over-long head (431)', () => {
    expect(refusalFor(error('HPE_HEADER_OVERFLOW', `GET /${'a'.repeat(100)}`), 64)?.status).toBe(414);
    expect(refusalFor(error('HPE_HEADER_OVERFLOW', `GET /${'a'.repeat(100)} HTTP/1.1\r\n`), 64)?.code).toBe(
      'request.uri_too_long',
    );
    expect(
      refusalFor(error('HPE_HEADER_OVERFLOW', `GET / HTTP/1.1\r\nX: ${'a'.repeat(100)}`), 64)?.code,
    ).toBe('request.headers_too_large');
    expect(refusalFor(error('HPE_HEADER_OVERFLOW'), 64)?.status).toBe(431);
  });

  it('answers a slow head 408, over-long chunk extensions 413, other parse errors 400', () => {
    expect(refusalFor(error('ERR_HTTP_REQUEST_TIMEOUT'))?.code).toBe('request.timeout');
    expect(refusalFor(error('HPE_CHUNK_EXTENSIONS_OVERFLOW'))?.status).toBe(413);
    expect(refusalFor(error('HPE_INVALID_METHOD'))?.detail).toMatch(/method/);
    expect(refusalFor(error('HPE_SOMETHING_NEW'))).toMatchObject({
      code: 'request.malformed',
      detail: 'The request is not valid HTTP/1.1',
    });
  });

  it('does not answer transport failures', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(refusalFor(error(code))).toBeNull();
  });
});
