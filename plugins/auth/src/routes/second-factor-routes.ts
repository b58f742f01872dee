import type { z } from 'zod';
import type { PluginContext, Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { recoveryCodeSignInSchema, totpSignInSchema } from '../domain/factor-requests.ts';
import { authErrors } from '../errors.ts';
import type { CodeVerdict } from '../service/second-factors.ts';
import { auditor, reserveFactorAttempt, type FactorRouteDeps } from './factor-route-deps.ts';
import type { CompletingFactor } from './sign-in-completion.ts';

type CodeStep = z.ZodType<{ pendingToken: string; code: string }>;

/**
 * The second step of a password sign-in (README, "Second factors"): the pending sign-in's token and a TOTP code or
 * a recovery code → the session. Exempt from the gate like `/auth/login`: the caller has no session yet.
 */
export function registerSecondFactorRoutes(ctx: PluginContext<AuthEnv>, deps: FactorRouteDeps): void {
  const audit = auditor(ctx);
  const codeStep = (
    path: string,
    schema: CodeStep,
    factor: CompletingFactor,
    prove: (tx: Queryable, userId: string, code: string) => Promise<CodeVerdict>,
  ) =>
    ctx.routes.add({
      method: 'POST',
      path,
      exempt: true,
      schema: { body: schema },
      handler: async (req, res, { body }) => {
        const pending = await deps.factors.findPending(body.pendingToken);
        // A sign-in that must enroll has no factor to prove yet.
        if (!pending || pending.enroll) throw authErrors.create('auth.sign_in.expired');
        const attempt = await reserveFactorAttempt(deps.throttle, req, pending.userId);
        await deps.complete(req, res, {
          userId: pending.userId,
          pending,
          factor,
          attempt,
          prove: (tx) => prove(tx, pending.userId, body.code),
        });
        // Each recovery code's use is audited on its own (README, "Recovery codes"), never with the code.
        if (factor === 'recovery_code')
          audit(req, 'auth.recovery_code.used', pending.userId, { during: 'sign-in' });
      },
    });

  codeStep('/api/v1/auth/login/totp', totpSignInSchema, 'totp', deps.factors.acceptTotp);
  codeStep(
    '/api/v1/auth/login/recovery-code',
    recoveryCodeSignInSchema,
    'recovery_code',
    (tx, userId, code) => deps.factors.useRecoveryCode(tx, userId, code),
  );
}
