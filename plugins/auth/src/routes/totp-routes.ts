import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { totpConfirmSchema, totpEnrollSchema } from '../domain/factor-requests.ts';
import { authErrors } from '../errors.ts';
import { totpStore } from '../store/totp-store.ts';
import { auditor, reserveFactorAttempt, type FactorRouteDeps } from './factor-route-deps.ts';

/**
 * Self-service TOTP (README, "TOTP"): enroll (a new secret, its otpauth URI and QR code), confirm with a first code
 * (which is burned like any other), remove. A sign-in that must enroll does the first two with its pendingToken,
 * and the confirmation signs it in.
 */
export function registerTotpRoutes(ctx: PluginContext<AuthEnv>, deps: FactorRouteDeps): void {
  const audit = auditor(ctx);

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/totp/enroll',
    exempt: true,
    schema: { body: totpEnrollSchema },
    handler: async (req, res, { body }) => {
      const principal = await deps.principals.adding(req, body.pendingToken);
      const shown = await deps.factors.beginTotp(principal.userId, principal.email);
      if (!shown) throw authErrors.create('auth.totp.already_enrolled');
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(shown);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/totp/confirm',
    exempt: true,
    schema: { body: totpConfirmSchema },
    handler: async (req, res, { body }) => {
      const principal = await deps.principals.adding(req, body.pendingToken);
      const attempt = await reserveFactorAttempt(deps.throttle, req, principal.userId);
      let recoveryCodes: string[] | null = null;
      const prove = async (tx: Parameters<typeof deps.factors.confirmTotp>[0]) => {
        const verdict = await deps.factors.confirmTotp(tx, principal.userId, body.code);
        if (verdict.ok) recoveryCodes = await deps.factors.enrolled(tx, principal.userId);
        return verdict;
      };
      res.setHeader('Cache-Control', 'no-store');
      if (principal.kind === 'pending') {
        // The enrollment's first code completes the sign-in that had to enroll.
        await deps.complete(req, res, {
          userId: principal.userId,
          pending: principal.pending,
          factor: 'totp',
          attempt,
          prove,
          extra: () => ({ recoveryCodes }),
        });
        audit(req, 'auth.totp.enrolled', principal.userId);
        return;
      }
      const verdict = await ctx.db.transaction(async (tx) => {
        const result = await prove(tx);
        if (result.ok) await deps.factors.markVerified(tx, principal.sid);
        return result;
      });
      if (!verdict.ok) {
        audit(req, 'auth.totp.failed', principal.userId, { reason: verdict.reason, during: 'enrollment' });
        throw authErrors.create('auth.second_factor.invalid');
      }
      await attempt.succeeded();
      audit(req, 'auth.totp.enrolled', principal.userId);
      res.status(200).json({ enrolled: true, recoveryCodes });
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/auth/totp',
    exempt: true,
    handler: async (req, res) => {
      const principal = await deps.principals.changing(req);
      if (!(await totpStore.remove(ctx.db.pool, principal.userId)))
        throw authErrors.create('auth.totp.not_enrolled');
      audit(req, 'auth.totp.removed', principal.userId, { by: 'self' });
      res.status(204).end();
    },
  });
}
