import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { stepUpSchema } from '../domain/factor-requests.ts';
import { authErrors } from '../errors.ts';
import { FRESH_FACTOR_SECONDS } from '../service/second-factors.ts';
import { factorStore } from '../store/factor-store.ts';
import { auditor, reserveFactorAttempt, type FactorRouteDeps } from './factor-route-deps.ts';

/**
 * The signed-in account's factors (README, "Second factors"): what it has, a step-up that proves a factor again
 * (what removing a factor needs), and a new set of recovery codes.
 */
export function registerFactorRoutes(ctx: PluginContext<AuthEnv>, deps: FactorRouteDeps): void {
  const audit = auditor(ctx);

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/auth/factors',
    exempt: true,
    handler: async (req, res) => {
      const { userId, sid } = await deps.principals.reading(req);
      const [state, verifiedAt] = await Promise.all([
        deps.factors.state(userId),
        factorStore.sessionVerifiedAt(ctx.db.pool, sid),
      ]);
      res.setHeader('Cache-Control', 'no-store');
      res.json({
        totp: state.totp,
        passkeys: state.passkeys,
        recoveryCodesLeft: state.recoveryCodes,
        enrollmentRequired: state.enrollmentRequired,
        passkeysAvailable: deps.deployment.webauthn !== null,
        factorVerifiedAt: verifiedAt,
        freshUntil: verifiedAt && new Date(verifiedAt.getTime() + FRESH_FACTOR_SECONDS * 1000),
      });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/step-up',
    exempt: true,
    schema: { body: stepUpSchema },
    handler: async (req, res, { body }) => {
      const identity = await deps.webSession.ownFromCookie(req, { changes: true });
      const attempt = await reserveFactorAttempt(deps.throttle, req, identity.sub);
      const factor = 'totpCode' in body ? 'totp' : 'recovery_code';
      const verdict = await ctx.db.transaction(async (tx) => {
        const result =
          'totpCode' in body
            ? await deps.factors.acceptTotp(tx, identity.sub, body.totpCode)
            : await deps.factors.useRecoveryCode(tx, identity.sub, body.recoveryCode);
        if (result.ok) await deps.factors.markVerified(tx, identity.sid);
        return result;
      });
      if (!verdict.ok) {
        const kind = verdict.reason === 'replayed' ? 'replayed' : 'failed';
        audit(req, `auth.${factor}.${kind}`, identity.sub, { reason: verdict.reason, during: 'step-up' });
        throw authErrors.create('auth.second_factor.invalid');
      }
      await attempt.succeeded();
      if (factor === 'recovery_code')
        audit(req, 'auth.recovery_code.used', identity.sub, { during: 'step-up' });
      audit(req, 'auth.step_up', identity.sub, { factor });
      const now = ctx.clock.now();
      res.json({ factorVerifiedAt: now, freshUntil: new Date(now.getTime() + FRESH_FACTOR_SECONDS * 1000) });
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/recovery-codes',
    exempt: true,
    handler: async (req, res) => {
      const principal = await deps.principals.changing(req);
      const state = await deps.factors.state(principal.userId);
      if (!state.totp && state.passkeys === 0) throw authErrors.create('auth.recovery_codes.no_factor');
      const codes = await ctx.db.transaction((tx) => deps.factors.newRecoveryCodes(tx, principal.userId));
      audit(req, 'auth.recovery_codes.generated', principal.userId, { count: codes.length });
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json({ recoveryCodes: codes });
    },
  });
}
