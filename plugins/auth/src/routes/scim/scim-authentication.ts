import type { Request, Response } from 'express';
import type { FailureAudit } from '../../../../../gateway/src/plugin-api.ts';
import { authErrors } from '../../errors.ts';
import type { ScimCaller } from '../../service/scim/scim-context.ts';
import type { ScimTokenAuthenticator } from '../../service/scim/token-authenticator.ts';
import type { Throttle } from '../../service/throttle.ts';

const callers = new WeakMap<Request, ScimCaller>();

/** The token `scimAuthentication` accepted for this request, with the request's id and address. */
export function scimCallerOf(req: Request): ScimCaller {
  const caller = callers.get(req);
  if (!caller) throw new Error('route has no SCIM authentication');
  return caller;
}

/**
 * The SCIM routes' `authenticate` step (README, "SCIM provisioning"): the bearer token, else 401
 * `auth.scim.unauthorized` (the reason audited as `api.auth.scim_token_failed`, never told to the client).
 *
 * Every refusal counts against the client address in the sign-in limiter (scope `scim:ip`, the per-address
 * allowance of logins): past it, refusals get 429 with `Retry-After` until the delay passes. A valid token is
 * never held back by it: identity providers call from shared addresses, which someone else's guesses must not
 * lock out.
 */
export function scimAuthentication(deps: {
  tokens: ScimTokenAuthenticator;
  throttle: Throttle;
  failures: FailureAudit;
}): (req: Request, res: Response) => Promise<void> {
  return async (req) => {
    const check = await deps.tokens.check(req.headers.authorization);
    if (check.ok) {
      callers.set(req, {
        tokenId: check.token.id,
        tokenName: check.token.name,
        requestId: req.gatehouse.id,
        ip: req.ip ?? null,
      });
      return;
    }
    deps.failures.record({
      kind: 'api.auth.scim_token_failed',
      reason: check.reason,
      method: req.method,
      route: req.gatehouse.route?.pattern ?? 'unmatched',
      requestId: req.gatehouse.id,
      ip: req.ip ?? null,
    });
    await deps.throttle.reserve([['scim:ip', req.ip ?? 'unknown']]);
    throw authErrors.create('auth.scim.unauthorized', {
      headers: { 'WWW-Authenticate': 'Bearer realm="scim"' },
    });
  };
}
