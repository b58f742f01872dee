import express, { type RequestHandler } from 'express';
import { coreErrors } from '../errors/core-errors.ts';
import { mayHoldUnstorableText } from './client-text.ts';
import { exceedsDepth, MAX_JSON_DEPTH } from './json-depth.ts';

/** The largest request body the gateway reads, whatever its type (docs/errors.md, `request.too_large`). */
export const BODY_LIMIT = '50mb';
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Pipeline step 3: JSON body parsing with the 50 MB limit, keeping the raw bytes for signature checks.
 *
 * Bodies of other types are not parsed, but their bytes are kept too (`req.rawBody`, same limit): gate
 * layer 1 signs the raw body whatever its type, and a proxied request re-sends exactly those bytes. A
 * signature made for an empty body therefore cannot carry a body added later.
 *
 * A parse failure (malformed JSON, too large, nested deeper than MAX_JSON_DEPTH, a compressed body that
 * does not decompress) is not sent from here: the request has no id yet (that is step 4), and every
 * error response must carry one. The error is parked on the request and raised right after step 4, so a
 * 413 still has security headers, a request id and a log line.
 */
export function jsonBody(): RequestHandler {
  const keepRaw = (req: express.Request, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  // JSON bodies whose bytes show they cannot hold U+0000 or a lone surrogate (see textCheckedBody).
  const cleanText = new WeakSet<express.Request>();
  const keepJson = (req: express.Request, _res: unknown, buf: Buffer, charset: string) => {
    req.rawBody = buf;
    if (!mayHoldUnstorableText(buf, charset)) cleanText.add(req);
  };
  const parseJson = express.json({ limit: BODY_LIMIT, type: JSON_TYPES, verify: keepJson });
  // Runs only when the JSON parser did not take the body (body-parser marks a parsed request).
  const keepOther = express.raw({ limit: BODY_LIMIT, type: () => true, verify: keepRaw });
  return (req, res, next) => {
    // No body (every GET, most DELETEs): nothing to read, and the hot path stays one check.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
      next();
      return;
    }
    parseJson(req, res, (err?: unknown) => {
      if (err) {
        req.bodyError = clientFacing(err);
        next();
        return;
      }
      if (req.rawBody !== undefined) {
        if (cleanText.has(req)) req.textCheckedBody = req.body;
        if (exceedsDepth(req.body, MAX_JSON_DEPTH)) {
          req.bodyError = coreErrors.create('request.too_deep', {
            detail: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`,
          });
        }
        next();
        return;
      }
      keepOther(req, res, (rawErr?: unknown) => {
        if (rawErr) req.bodyError = clientFacing(rawErr);
        // The raw parser sets req.body to the bytes; handlers see only parsed JSON bodies.
        else req.body = undefined;
        next();
      });
    });
  };
}

/**
 * body-parser tags the failures it recognises with a `type` (mapped in errors/problem.ts). A compressed
 * body that does not decompress reaches us untagged, as the zlib, brotli or zstd stream's own error: it is
 * the client's bytes that are wrong, so it becomes a 400 here, where its origin is known, rather than an
 * `internal` error. Decompressors' out-of-memory failures are not the client's doing and stay as they are.
 */
function clientFacing(err: unknown): unknown {
  if (typeof err !== 'object' || err === null || 'type' in err) return err;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && isCorruptStreamCode(code)) {
    return coreErrors.create('request.corrupt_encoding', { cause: err });
  }
  return err;
}

/** The error codes node:zlib gives when the compressed data itself is bad (truncated, wrong format). */
function isCorruptStreamCode(code: string): boolean {
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR' || code === 'Z_NEED_DICT') return true;
  // Brotli decoder errors (BROTLI_DECODER_ERROR_FORMAT_*, _DICTIONARY_NOT_SET), as node names them.
  if (code.startsWith('ERR__ERROR_FORMAT_') || code === 'ERR__ERROR_DICTIONARY_NOT_SET') return true;
  return code.startsWith('ZSTD_error_') && code !== 'ZSTD_error_memory_allocation';
}
