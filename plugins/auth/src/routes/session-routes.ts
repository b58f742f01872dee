import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { credentialsSchema } from '../domain/requests.ts';
import { authErrors } from '../errors.ts';
import { readSessionCookie } from './session-cookie.ts';
import { webSessions } from './web-session.ts';
import type { AuthDeployment } from '../deployment/validate.ts';
import type { LoginService } from '../service/login.ts';
import type { PendingStep, SecondFactors } from '../service/second-factors.ts';
import type { SignInMetrics } from '../service/sign-in-metrics.ts';
import type { Throttle } from '../service/throttle.ts';
import type { AttemptScope } from '../store/attempt-store.ts';
import { sessionStore } from '../store/session-store.ts';

/**
 * Password sign-in and the web session (README, "Routes" and "Web sessions"). These routes are exempt from
 * the API gate: browsers call them with the session cookie, not with the dashboard's HMAC; state-changing
 * ones check Origin instead.
 */
export function registerSessionRoutes(
  ctx: PluginContext<AuthEnv>,
  deps: {
    login: LoginService;
    throttle: Throttle;
    factors: SecondFactors;
    deployment: AuthDeployment;
    signIns: SignInMetrics;
  },
): void {
  const webSession = webSessions(ctx);

  ctx.routes.add({
    method: 'POST',
    path: '/auth/login',
    exempt: true,
    schema: { body: credentialsSchema },
    handler: async (req, res, { body }) => {
      const keys: Array<[AttemptScope, string]> = [
        ['login:account', body.email],
        ['login:ip', req.ip ?? 'unknown'],
      ];
      // Counted before the hash, so parallel guesses cannot all pass a check made before any was counted.
      const attempt = await deps.throttle.reserve(keys);
      const result = await deps.login.login(body.email, body.password).catch(async (err: unknown) => {
        await attempt.abandoned();
        throw err;
      });
      const where = { requestId: req.gatehouse.id, ip: req.ip ?? null };
      if (!result.ok) {
        // The reason is for the audit trail only; every failure answers the same (README, "Sign-in failures").
        ctx.audit.writeLater({
          kind: 'auth.login.failure',
          actor: result.userId,
          ...where,
          payload: { method: 'password', reason: result.reason },
        });
        deps.signIns.record('password', 'failure');
        throw authErrors.create('auth.invalid_credentials');
      }
      const { user } = result;
      await attempt.succeeded();
      // README, "Second factors": an account with a factor, or one that must enroll one, gets no session yet.
      const pending = await deps.factors.afterPassword(user, result);
      if (pending) {
        ctx.audit.writeLater({
          kind: 'auth.login.second_factor_required',
          actor: user.id,
          ...where,
          payload: { method: result.method, step: pending.step, breakGlass: result.breakGlass },
        });
        deps.signIns.record(result.method, 'second_factor_required');
        res.setHeader('Cache-Control', 'no-store');
        res.status(200).json(pendingAnswer(pending, deps.deployment));
        return;
      }
      const session = await webSession.start(req, res, user);
      ctx.audit.writeLater({
        kind: 'auth.login.success',
        actor: user.id,
        ...where,
        payload: { method: result.method },
      });
      deps.signIns.record(result.method, 'success');
      res.status(200).json({
        status: 'signed_in',
        user: { id: user.id, email: user.email, roles: user.roles },
        expiresAt: session.expiresAt,
      });
    },
  });

  // Who am I: the session of the cookie (or of a forwarded session token).
  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/auth/session',
    exempt: true,
    handler: async (req, res) => {
      const header = req.headers['x-forwarded-session'];
      const token =
        readSessionCookie(req, webSession.cookieName) ?? (typeof header === 'string' ? header : undefined);
      const result = token ? await ctx.sessions.verify(token) : null;
      if (!result?.ok) throw authErrors.create('auth.session.missing');
      res.json({ identity: result.identity });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/logout',
    exempt: true,
    handler: async (req, res) => {
      const identity = await webSession.ownFromCookie(req, { changes: true });
      if (await sessionStore.revoke(ctx.db.pool, identity.sid, 'logout')) {
        ctx.audit.writeLater({
          kind: 'auth.session.revoked',
          actor: identity.sub,
          requestId: req.gatehouse.id,
          ip: req.ip ?? null,
          payload: { reason: 'logout' },
        });
      }
      res.clearCookie(webSession.cookieName, { ...webSession.cookieOptions, maxAge: undefined });
      res.status(204).end();
    },
  });
}

/**
 * The answer to a correct password that needs a second step (README, "Second factors"): the token the next request
 * carries, and the factors that step may use (to prove one it has, or to enroll one).
 */
function pendingAnswer(pending: PendingStep, deployment: AuthDeployment) {
  const passkeys = deployment.webauthn !== null;
  const methods =
    pending.step === 'enroll'
      ? { totp: true, passkey: passkeys, recoveryCode: false }
      : {
          totp: pending.factors.totp,
          passkey: passkeys && pending.factors.passkeys > 0,
          recoveryCode: pending.factors.recoveryCodes > 0,
        };
  return {
    status: pending.step === 'enroll' ? 'second_factor_enrollment_required' : 'second_factor_required',
    pendingToken: pending.token,
    expiresAt: pending.expiresAt,
    methods,
  };
}
