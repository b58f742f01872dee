import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { recoveryCodeSignInSchema, totpSignInSchema } from '../domain/factor-requests.ts';
import { authErrors } from '../errors.ts';
import { reserveFactorAttempt, type FactorRouteDeps } from './factor-route-deps.ts';

/**
 * The second step of a password sign-in (README, "Second factors"): the pending sign-in's token and a TOTP code or
 * a recovery code → the session. Exempt from the gate like `/auth/login`: the caller has no session yet.
 */
export function registerSecondFactorRoutes(ctx: PluginContext<AuthEnv>, deps: FactorRouteDeps): void {
  const pendingOf = async (token: string) => {
    const pending = await deps.factors.findPending(token);
    // A sign-in that must enroll has no factor to prove yet.
    if (!pending || pending.enroll) throw authErrors.create('auth.sign_in.expired');
    return pending;
  };

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/login/totp',
    exempt: true,
    schema: { body: totpSignInSchema },
    handler: async (req, res, { body }) => {
      const pending = await pendingOf(body.pendingToken);
      const attempt = await reserveFactorAttempt(deps.throttle, req, pending.userId);
      await deps.complete(req, res, {
        userId: pending.userId,
        pending,
        factor: 'totp',
        attempt,
        prove: (tx) => deps.factors.acceptTotp(tx, pending.userId, body.code),
      });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/login/recovery-code',
    exempt: true,
    schema: { body: recoveryCodeSignInSchema },
    handler: async (req, res, { body }) => {
      const pending = await pendingOf(body.pendingToken);
      const attempt = await reserveFactorAttempt(deps.throttle, req, pending.userId);
      await deps.complete(req, res, {
        userId: pending.userId,
        pending,
        factor: 'recovery_code',
        attempt,
        prove: (tx) => deps.factors.useRecoveryCode(tx, pending.userId, body.code),
      });
      // Each use is audited on its own (README, "Recovery codes"): who, when, from where — never the code.
      ctx.audit.writeLater({
        kind: 'auth.recovery_code.used',
        actor: pending.userId,
        requestId: req.gatehouse.id,
        ip: req.ip ?? null,
        payload: { during: 'sign-in' },
      });
    },
  });
}
