import type { Request } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import type { SecondFactors } from '../service/second-factors.ts';
import type { Attempt, Throttle } from '../service/throttle.ts';
import type { FactorPrincipals } from './factor-principal.ts';
import type { CompleteSignIn } from './sign-in-completion.ts';
import type { SignInMetrics } from '../service/sign-in-metrics.ts';
import type { WebSessions } from './web-session.ts';

/** What the second-factor routes share (wired in src/index.ts). */
export interface FactorRouteDeps {
  deployment: AuthDeployment;
  factors: SecondFactors;
  complete: CompleteSignIn;
  principals: FactorPrincipals;
  throttle: Throttle;
  webSession: WebSessions;
  signIns: SignInMetrics;
}

/** Counts one second-factor guess for the account and the client address (README, "Brute-force limits"). */
export function reserveFactorAttempt(throttle: Throttle, req: Request, userId: string): Promise<Attempt> {
  return throttle.reserve([
    ['factor:account', userId],
    ['factor:ip', req.ip ?? 'unknown'],
  ]);
}

/** Writes an audit record of the request's caller. */
export function auditor(ctx: PluginContext<AuthEnv>) {
  return (req: Request, kind: string, actor: string | null, payload: Record<string, unknown> = {}) =>
    ctx.audit.writeLater({ kind, actor, requestId: req.gatehouse.id, ip: req.ip ?? null, payload });
}
