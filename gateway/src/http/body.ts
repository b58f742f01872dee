import express, { type RequestHandler } from 'express';

/** 002 "Limits": JSON body size. */
export const JSON_BODY_LIMIT = '50mb';

/**
 * 002 step 3: JSON body parsing with the 50 MB limit, keeping the raw bytes for signature checks.
 *
 * A parse failure (malformed JSON, too large) is not sent from here: the request has no id yet (that is
 * step 4), and every error response must carry one. The error is parked on the request and raised right
 * after step 4, so a 413 still has security headers, a request id and a log line.
 */
export function jsonBody(): RequestHandler {
  const parse = express.json({
    limit: JSON_BODY_LIMIT,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
  return (req, res, next) => {
    parse(req, res, (err?: unknown) => {
      if (err) req.bodyError = err;
      next();
    });
  };
}
