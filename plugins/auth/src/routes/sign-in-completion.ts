import type { Request, Response } from 'express';
import type { PluginContext, Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { mayUsePassword, type AuthDeployment } from '../deployment/validate.ts';
import { authErrors } from '../errors.ts';
import type { CodeVerdict, SecondFactors } from '../service/second-factors.ts';
import type { SignInMetrics } from '../service/sign-in-metrics.ts';
import type { Attempt } from '../service/throttle.ts';
import type { PendingSignIn } from '../store/pending-sign-in-store.ts';
import { userStore, type UserRow } from '../store/user-store.ts';
import type { WebSessions } from './web-session.ts';

/** The factor that completed a sign-in, as audited. */
export type CompletingFactor = 'totp' | 'recovery_code' | 'passkey';

export interface Completion {
  /** The account the factor belongs to. */
  userId: string;
  /** The password sign-in this completes; null for a passkey sign-in, which is complete by itself. */
  pending: PendingSignIn | null;
  factor: CompletingFactor;
  /** A passkey sign-in allowed only because the account is a break-glass admin (oidc mode, LDAP_MODE=only). */
  breakGlass?: boolean;
  /** The attempt counted on the limits for this factor: given back on success, kept on a refusal. */
  attempt: Attempt;
  /** Checks and uses the factor inside the session's transaction (a compare-and-set); a refusal rolls it back. */
  prove: (tx: Queryable) => Promise<CodeVerdict>;
  /** Fields added to the answer (recovery codes shown once). */
  extra?: () => Record<string, unknown>;
}

class Refused extends Error {
  readonly verdict: Extract<CodeVerdict, { ok: false }>;
  constructor(verdict: Extract<CodeVerdict, { ok: false }>) {
    super('second factor refused');
    this.verdict = verdict;
  }
}

/**
 * The end of every sign-in that proves a second factor (README, "Second factors"): the account is read again (a
 * sign-in of an account disabled, or no longer a break-glass admin, between its two steps is refused), then the
 * pending sign-in is used up, the factor is used and the session is inserted in one transaction, so a code or a
 * pending sign-in serves exactly one session however many requests race.
 */
export function signInCompletion(
  ctx: PluginContext<AuthEnv>,
  deps: {
    webSession: WebSessions;
    factors: SecondFactors;
    deployment: AuthDeployment;
    signIns: SignInMetrics;
  },
) {
  const audit = (req: Request, kind: string, actor: string | null, payload: Record<string, unknown>) =>
    ctx.audit.writeLater({ kind, actor, requestId: req.gatehouse.id, ip: req.ip ?? null, payload });

  const current = async (completion: Completion): Promise<UserRow> => {
    const user = await userStore.findById(ctx.db.pool, completion.userId);
    const breakGlass = completion.pending?.breakGlass ?? completion.breakGlass ?? false;
    const allowed =
      user !== null &&
      user.disabledAt === null &&
      (!breakGlass || mayUsePassword(deps.deployment.password, user.roles));
    if (!allowed) throw authErrors.create('auth.invalid_credentials');
    return user;
  };

  return async function complete(req: Request, res: Response, completion: Completion): Promise<void> {
    const user = await current(completion);
    const { pending } = completion;
    let session: { expiresAt: Date };
    try {
      session = await deps.webSession.start(req, res, user, {
        prove: async (tx) => {
          if (pending && !(await deps.factors.consumePending(tx, pending)))
            throw authErrors.create('auth.sign_in.expired');
          const verdict = await completion.prove(tx);
          if (!verdict.ok) throw new Refused(verdict);
        },
      });
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      const { reason } = err.verdict;
      audit(req, `auth.${completion.factor}.${reason === 'replayed' ? 'replayed' : 'failed'}`, user.id, {
        reason,
      });
      if (pending) await deps.factors.pendingFailed(pending);
      deps.signIns.record(pending?.method ?? 'passkey', 'second_factor_failed');
      throw authErrors.create('auth.second_factor.invalid');
    }
    await completion.attempt.succeeded();
    const method = pending?.method ?? 'passkey';
    audit(req, 'auth.login.success', user.id, { method, factor: completion.factor });
    deps.signIns.record(method, 'success');
    if (pending?.breakGlass ?? completion.breakGlass)
      audit(req, 'auth.login.break_glass', user.id, { method, factor: completion.factor });
    res.status(200).json({
      status: 'signed_in',
      user: { id: user.id, email: user.email, roles: user.roles },
      expiresAt: session.expiresAt,
      ...completion.extra?.(),
    });
  };
}

export type CompleteSignIn = ReturnType<typeof signInCompletion>;
