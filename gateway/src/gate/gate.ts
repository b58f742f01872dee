import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler } from 'express';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Clock } from '../clock.ts';
import { coreErrors } from '../errors/core-errors.ts';
import type { GateConfig } from './config.ts';
import type { FailureAudit } from './failure-audit.ts';
import type { GateLayer, GateMetrics } from './gate-metrics.ts';
import { prepareSecrets, SIGNATURE_HEADER, verifySignature } from './hmac.ts';
import type { SessionResult, SessionVerifier } from './session-verifier.ts';
import '../http/request-state.ts';

export const SESSION_HEADER = 'x-forwarded-session';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether the gate applies (docs/api-auth-gate.md, "Which routes are gated"): a matched route unless it is
 * declared exempt, and any unmatched path under /api/v1/ (so a client without credentials cannot probe which
 * routes exist). Other unmatched paths get their plain 404.
 */
export function isGated(req: Request): boolean {
  const route = req.gatehouse.route;
  return route ? !route.exempt : req.path.startsWith('/api/v1/');
}

export interface GateDeps {
  config: GateConfig;
  verifier: SessionVerifier;
  failures: FailureAudit;
  metrics: GateMetrics;
  audit: Pick<AuditWriter, 'writeLater'>;
  clock: Clock;
}

/**
 * The three pipeline steps of the gate (steps 5, 6 and 7 of http/pipeline.ts) in the mode of API_AUTH_MODE:
 * `disabled` does nothing and writes nothing; `warn` records failures (audit row + metric) and lets the
 * request through; `enforce` answers 401 `api.auth.unauthenticated`, never saying which check failed.
 */
export function createGate(deps: GateDeps): {
  layer1: RequestHandler;
  layer2: RequestHandler;
  sensitiveAudit: RequestHandler;
} {
  const failed = failureHandler(deps);
  return {
    layer1: hmacLayer(deps, failed),
    layer2: sessionLayer(deps, failed),
    sensitiveAudit: sensitiveAccessAudit(deps),
  };
}

const LAYER_KIND = { hmac: 'api.auth.hmac_failed', session: 'api.auth.session_failed' } as const;

/** What a layer does with a request that failed it, once the reason is known. */
type FailedLayer = (req: Request, layer: GateLayer, reason: string, next: NextFunction) => void;

/**
 * A failed layer, in the mode's way: audited (collapsed) and counted; in warn the request goes on as
 * `would_deny`, in enforce it ends with 401 and nothing says which layer or why.
 */
function failureHandler({ config, failures, metrics }: GateDeps): FailedLayer {
  const mode = config.mode;
  const unauthenticated = () => coreErrors.create('api.auth.unauthenticated');
  return (req, layer, reason, next) => {
    failures.record({
      kind: LAYER_KIND[layer],
      mode: mode as 'warn' | 'enforce',
      reason,
      method: req.method,
      route: req.gatehouse.route?.pattern ?? 'unmatched',
      requestId: req.gatehouse.id,
      ip: req.ip ?? null,
    });
    if (mode === 'warn') {
      metrics.decision(layer, 'would_deny');
      // Layer 2 gives the request's one verdict; it needs to know layer 1 failed.
      if (layer === 'hmac') req.gateHmacFailed = true;
      else metrics.verdict('would_deny');
      return next();
    }
    metrics.decision(layer, 'fail');
    metrics.verdict('fail');
    return next(unauthenticated());
  };
}

/** Pipeline step 5, layer 1: the internal-secret HMAC of the request (SIGNATURE_HEADER). */
function hmacLayer({ config, metrics, clock }: GateDeps, failed: FailedLayer): RequestHandler {
  const mode = config.mode;
  const internalKeys = prepareSecrets(config.internalSecrets);
  return (req, _res, next) => {
    if (!isGated(req)) return next();
    if (mode === 'disabled') {
      metrics.decision('hmac', 'skipped');
      return next();
    }
    req.gateStartedAt = performance.now();
    const result = verifySignature(
      req.headers[SIGNATURE_HEADER],
      { method: req.method, url: req.originalUrl, body: req.rawBody },
      internalKeys,
      Math.floor(clock.nowMs() / 1000),
    );
    if (result.ok) {
      metrics.decision('hmac', 'pass');
      return next();
    }
    // Layer 2 will not run after an enforce refusal, so the gate's time is observed here.
    if (mode === 'enforce') metrics.observe((performance.now() - req.gateStartedAt) / 1000);
    return failed(req, 'hmac', result.reason, next);
  };
}

/**
 * Pipeline step 6, layer 2: the forwarded session (SESSION_HEADER), which gives the request its identity and
 * its one verdict over both layers.
 */
function sessionLayer({ config, metrics, verifier }: GateDeps, failed: FailedLayer): RequestHandler {
  const mode = config.mode;
  const decide = (req: Request, result: SessionResult, next: NextFunction): void => {
    metrics.observe((performance.now() - (req.gateStartedAt ?? performance.now())) / 1000);
    if (result.ok) {
      req.identity = result.identity;
      metrics.decision('session', 'pass');
      metrics.verdict(req.gateHmacFailed === true ? 'would_deny' : 'pass');
      return next();
    }
    return failed(req, 'session', result.reason, next);
  };
  return (req, _res, next) => {
    if (!isGated(req)) return next();
    if (mode === 'disabled') {
      metrics.decision('session', 'skipped');
      return next();
    }
    const header = req.headers[SESSION_HEADER];
    const result = verifier.verify(typeof header === 'string' ? header : undefined);
    // A cached session answers synchronously: the request goes on without waiting for a microtask turn.
    if (result instanceof Promise) return result.then((settled) => decide(req, settled, next));
    return decide(req, result, next);
  };
}

/**
 * Pipeline step 7: an `api.access.sensitive` row for every write to a gated route and every call to a route
 * a plugin declared sensitive, with the identity layer 2 established (none when it did not). Like the
 * gates, it writes nothing while the mode is `disabled`.
 */
function sensitiveAccessAudit({ config, audit }: GateDeps): RequestHandler {
  const mode = config.mode;
  return (req, _res, next) => {
    if (mode === 'disabled') return next();
    const route = req.gatehouse.route;
    if (route === null || route.exempt || !(route.sensitive || WRITE_METHODS.has(req.method))) return next();
    const identity = req.identity;
    audit.writeLater({
      kind: 'api.access.sensitive',
      actor: identity?.sub ?? null,
      requestId: req.gatehouse.id,
      ip: req.ip ?? null,
      payload: {
        mode,
        method: req.method,
        route: route.pattern,
        owner: route.owner,
        ...(identity
          ? { email: identity.email, roles: identity.roles, sid: identity.sid }
          : { identity: null }),
      },
    });
    return next();
  };
}
