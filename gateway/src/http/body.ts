import express, { type RequestHandler } from 'express';

/** 002 "Limits": body size. */
export const BODY_LIMIT = '50mb';
const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * 002 step 3: JSON body parsing with the 50 MB limit, keeping the raw bytes for signature checks.
 *
 * Bodies of other types are not parsed, but their bytes are kept too (`req.rawBody`, same limit): gate
 * layer 1 signs the raw body whatever its type, and a proxied request re-sends exactly those bytes. A
 * signature made for an empty body therefore cannot carry a body added later.
 *
 * A parse failure (malformed JSON, too large) is not sent from here: the request has no id yet (that is
 * step 4), and every error response must carry one. The error is parked on the request and raised right
 * after step 4, so a 413 still has security headers, a request id and a log line.
 */
export function jsonBody(): RequestHandler {
  const keepRaw = (req: express.Request, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  const parseJson = express.json({ limit: BODY_LIMIT, type: JSON_TYPES, verify: keepRaw });
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
        req.bodyError = err;
        next();
        return;
      }
      if (req.rawBody !== undefined) {
        next();
        return;
      }
      keepOther(req, res, (rawErr?: unknown) => {
        if (rawErr) req.bodyError = rawErr;
        // The raw parser sets req.body to the bytes; handlers see only parsed JSON bodies.
        else req.body = undefined;
        next();
      });
    });
  };
}
