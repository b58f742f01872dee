import { randomUUID } from 'node:crypto';
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { coreErrors } from '../errors/core-errors.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { PROBLEM_CONTENT_TYPE, toProblem } from '../errors/problem.ts';
import { securityHeaderPairs } from './security-headers.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

/** What node's HTTP parser gives a `clientError`: an errno-style code and, for parse errors, the bytes read. */
type ClientError = Error & { code?: string; rawPacket?: Buffer };

/** The parser's refusals we can explain more precisely than "not valid HTTP/1.1". */
const MALFORMED_DETAILS: Readonly<Record<string, string>> = {
  HPE_INVALID_METHOD: 'The request does not start with a known HTTP method',
  HPE_INVALID_URL: 'The request target contains characters that must be percent-encoded',
  HPE_INVALID_VERSION: 'The request line is not "METHOD target HTTP/1.1" ending in CRLF',
  HPE_LF_EXPECTED: 'Lines of the request head must end in CRLF',
  HPE_CR_EXPECTED: 'Lines of the request head must end in CRLF',
  HPE_INVALID_HEADER_TOKEN: 'A header name or value contains a character HTTP does not allow',
  HPE_INVALID_CONTENT_LENGTH: 'Content-Length is not a number',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'Content-Length is given twice or together with Transfer-Encoding',
  HPE_INVALID_TRANSFER_ENCODING: 'Transfer-Encoding is invalid or conflicts with Content-Length',
  HPE_INVALID_CHUNK_SIZE: 'A chunk of the chunked body has an invalid size',
  HPE_INVALID_EOF_STATE: 'The connection ended in the middle of a request',
  HPE_PAUSED_H2_UPGRADE: 'HTTP/2 is not served on this port without TLS',
};

/**
 * The problem a refused request gets. Node reports an over-long request line and over-long headers with
 * the same code; the request line alone past the head limit is the URI's fault (414).
 */
export function refusalFor(err: ClientError, headLimit = maxHeaderSize): GatewayError | null {
  const code = err.code ?? '';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return coreErrors.create('request.timeout');
  if (!code.startsWith('HPE_')) return null;
  if (code === 'HPE_HEADER_OVERFLOW') {
    const raw = err.rawPacket;
    const lineEnd = raw ? raw.indexOf(0x0a) : -1;
    const lineLength = raw === undefined ? 0 : lineEnd === -1 ? raw.length : lineEnd;
    return lineLength >= headLimit
      ? coreErrors.create('request.uri_too_long')
      : coreErrors.create('request.headers_too_large');
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return coreErrors.create('request.too_large', { detail: 'Chunk extensions exceed the size limit' });
  }
  return coreErrors.create('request.malformed', { detail: MALFORMED_DETAILS[code] });
}

/**
 * Requests node:http refuses before any request object exists (an over-long URI or head, an unknown
 * method, bare LF line ends, raw non-ASCII bytes in the target, a broken chunked body, a head that took
 * too long) are answered like every other error of the gateway (docs/errors.md): problem+json with a
 * stable code, the security headers of the pipeline, a new request id in `X-Request-Id` and in the body,
 * `Connection: close`, and a log line with the parser's reason. Transport failures (reset, a socket that
 * can no longer be written) just close the socket.
 *
 * A pipelined request may still be in flight on the same socket; once its response has started, a
 * second response would corrupt the stream, so the socket is only closed (as node itself does).
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  const securityHeaders = securityHeaderPairs();
  const answered = new WeakSet<Duplex>();

  server.on('clientError', (err: ClientError, socket: Duplex) => {
    // The parser may report again on the same socket before it closes: one answer per connection.
    if (answered.has(socket)) return;
    answered.add(socket);
    const refusal = refusalFor(err);
    if (refusal === null || !socket.writable || responseStarted(socket)) {
      logger.debug({ reason: err.code }, 'connection closed on a client error');
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    socket.write(render(refusal, requestId, securityHeaders, { withBody: !isHeadRequest(err) }));
    (socket as Socket).destroySoon();
    logger.info(
      { reqId: requestId, status: refusal.status, code: refusal.code, reason: err.code },
      'request refused by the HTTP parser',
    );
  });
}

/** Whether a response on this socket has already sent its head (node's own check, on its own field). */
function responseStarted(socket: Duplex): boolean {
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  return inFlight?.headersSent === true;
}

/**
 * Whether the refused request is a HEAD, whose answer must not carry a body (a client would read the body as
 * the start of a next response). The parser hands over the bytes it was reading: the request's first bytes
 * when its head arrived in one read, which is how an over-long request line usually comes.
 */
function isHeadRequest(err: ClientError): boolean {
  return err.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
}

function render(
  error: GatewayError,
  requestId: string,
  securityHeaders: ReadonlyArray<readonly [string, string]>,
  options: { withBody: boolean },
): Buffer {
  const body = Buffer.from(JSON.stringify(toProblem(error, requestId)));
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}`,
    ...securityHeaders.map(([name, value]) => `${name}: ${value}`),
    `${REQUEST_ID_HEADER}: ${requestId}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${body.length}`,
    `Date: ${new Date().toUTCString()}`,
    'Connection: close',
  ];
  const headBytes = Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1');
  return options.withBody ? Buffer.concat([headBytes, body]) : headBytes;
}
