import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { ExpressClasses } from './express-classes.ts';

/**
 * Runs the pipeline steps as one precompiled chain over Express's own request and response objects.
 *
 * Express's `app.handle` does two things per request: give req/res Express's prototypes (so `res.json`,
 * `req.ip`, `req.query` work) and walk its router's layer list. The first is done here exactly as
 * Express does it. The second is replaced: the pipeline's order is fixed at boot (002, "Request
 * processing order"), so walking a router's layers, matching each path and re-entering `next` through
 * the router's bookkeeping is work without purpose on every request. Steps keep Express's middleware
 * signature, `next(err)` and rejected-promise semantics, so any Express middleware can be a step.
 * See docs/adr/0003-pipeline-as-compiled-chain.md.
 */
export function compose(
  app: Express,
  steps: readonly RequestHandler[],
  onError: ErrorRequestHandler,
  classes?: ExpressClasses,
): (req: IncomingMessage, res: ServerResponse) => void {
  const requestProto = app.request;
  const responseProto = app.response;
  const ready = classes?.IncomingMessage;

  /** Hands an error to the error handler, once per request: a late rejection after a failure is ignored. */
  const fail = (err: unknown, req: Request, res: Response): void => {
    if (req.gatehouseFailed === true) return;
    req.gatehouseFailed = true;
    try {
      onError(err, req, res, noop);
    } catch {
      res.destroy();
    }
  };

  return function handle(rawReq, rawRes) {
    const req = rawReq as Request;
    const res = rawRes as Response;
    req.res = res;
    res.req = req;
    // Requests built by `expressClasses` already carry Express's API; others get it as Express gives it.
    if (ready === undefined || !(rawReq instanceof ready)) {
      Object.setPrototypeOf(req, requestProto);
      Object.setPrototypeOf(res, responseProto);
    }
    res.locals = Object.create(null) as Record<string, unknown>;
    req.originalUrl = req.url;
    req.baseUrl = '';

    let index = 0;
    const next: NextFunction = (err?: unknown) => {
      if (err !== undefined && err !== null && err !== 'route' && err !== 'router') {
        fail(err, req, res);
        return;
      }
      const step = steps[index++];
      if (step === undefined) return;
      try {
        const result: unknown = step(req, res, next);
        if (result instanceof Promise) result.then(undefined, (error: unknown) => fail(error, req, res));
      } catch (error) {
        fail(error, req, res);
      }
    };
    next();
  };
}

function noop(): void {}
