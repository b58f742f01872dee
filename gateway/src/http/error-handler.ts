import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { coreErrors } from '../errors/core-errors.ts';
import type { GatewayError } from '../errors/gateway-error.ts';
import { PROBLEM_CONTENT_TYPE, toGatewayError, toProblem } from '../errors/problem.ts';
import { requestIdFor } from './request-context.ts';
import { REQUEST_ID_HEADER } from './request-state.ts';

/** Pipeline step 8: hands the request to the route matched in step 4, or reports that none matched. */
export const dispatch: RequestHandler = (req, res, next) => {
  const route = req.gatehouse.route;
  if (route === null) {
    next(coreErrors.create('request.not_found'));
    return undefined;
  }
  // Express 5 forwards a rejected promise to the error handler.
  return route.invoke(req, res);
};

/**
 * Pipeline step 9: the common error handler. Every error becomes problem+json (docs/errors.md); only
 * catalogue data leaves the process. Unexpected errors are logged with the request id, so a client's
 * requestId finds the stack in the logs.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const error = toGatewayError(err);
    // An error before step 4 (the CORS step, say) still gets an id.
    const requestId = req.gatehouse?.id ?? requestIdFor(req);
    // Bugs and driver failures are logged with their stack; a deliberate 5xx (503 from a health check)
    // only with its code.
    if (error.code === 'internal') logger.error({ err, reqId: requestId }, 'request failed');
    else if (error.status >= 500) logger.warn({ code: error.code, reqId: requestId }, 'request failed');
    sendProblem(req, res, error, requestId);
  };
}

/**
 * Writes a GatewayError as problem+json, or in the matched route's own error format; if part of a response
 * is already out, cuts the connection.
 */
export function sendProblem(
  req: Request,
  res: Response,
  error: GatewayError,
  requestId = req.gatehouse.id,
): void {
  if (res.headersSent) {
    // The only honest signal left is to cut the connection.
    res.destroy();
    return;
  }
  res.status(error.status);
  res.setHeader(REQUEST_ID_HEADER, requestId);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  // A route built to a protocol that fixes its own error document (SCIM) answers in it; the step-4 match
  // is known for every error raised from the body step on.
  const format = req.gatehouse?.route?.errorFormat;
  if (format) {
    res.setHeader('Content-Type', `${format.mediaType}; charset=utf-8`);
    res.end(JSON.stringify(format.render(error, requestId)));
    return;
  }
  res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  res.end(JSON.stringify(toProblem(error, requestId)));
}
