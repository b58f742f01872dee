import type { Request, Response } from 'express';
import type { FailureAudit } from '../../../../gateway/src/plugin-api.ts';
import { kycErrors } from '../errors.ts';
import type { KeyAuthenticator } from '../service/key-authenticator.ts';
import type { RateDecision, RateLimiter } from '../service/rate-limiter.ts';
import type { KeyWithTenant } from '../store/key-store.ts';

export const API_KEY_HEADER = 'x-api-key';

const authenticated = new WeakMap<Request, KeyWithTenant>();

/** The key `authenticate` accepted for this request. */
export function apiKeyOf(req: Request): KeyWithTenant {
  const key = authenticated.get(req);
  if (!key) throw new Error('route has no API-key authentication');
  return key;
}

/**
 * The tenant routes' `authenticate` step (runs before validation): `X-Api-Key` (401
 * `kyc.api_key.invalid`, the reason audited as `api.auth.api_key_failed`, never told to the client), then
 * the key's rate limit, whose `RateLimit-*` headers go on every response of an authenticated request
 * (429 `kyc.rate_limited` with `Retry-After` beyond it).
 */
export function apiKeyAuthentication(deps: {
  keys: KeyAuthenticator;
  limiter: RateLimiter;
  failures: FailureAudit;
  windowSeconds: number;
}): (req: Request, res: Response) => Promise<void> {
  const policy = (limit: number) => `${limit};w=${deps.windowSeconds}`;
  const headers = (res: Response, decision: RateDecision) => {
    res.setHeader('RateLimit-Policy', policy(decision.limit));
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
  };
  return async (req, res) => {
    const header = req.headers[API_KEY_HEADER];
    const check = await deps.keys.check(typeof header === 'string' ? header : undefined);
    if (!check.ok) {
      deps.failures.record({
        kind: 'api.auth.api_key_failed',
        reason: check.reason,
        method: req.method,
        route: req.gatehouse.route?.pattern ?? 'unmatched',
        requestId: req.gatehouse.id,
        ip: req.ip ?? null,
      });
      throw kycErrors.create('kyc.api_key.invalid');
    }
    const decision = await deps.limiter.take(check.key.keyId);
    headers(res, decision);
    if (!decision.allowed) {
      throw kycErrors.create('kyc.rate_limited', {
        detail: `At most ${decision.limit} requests per ${deps.windowSeconds} s for this API key.`,
        headers: { 'Retry-After': String(decision.resetSeconds) },
      });
    }
    authenticated.set(req, check.key);
  };
}
