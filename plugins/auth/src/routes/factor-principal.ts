import type { Request } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { authErrors } from '../errors.ts';
import type { SecondFactors } from '../service/second-factors.ts';
import type { PendingSignIn } from '../store/pending-sign-in-store.ts';
import { userStore } from '../store/user-store.ts';
import type { WebSessions } from './web-session.ts';

/** Who is changing an account's factors: a signed-in session, or a sign-in that must enroll one first. */
export type FactorPrincipal =
  | { kind: 'session'; userId: string; email: string; sid: string }
  | { kind: 'pending'; userId: string; email: string; pending: PendingSignIn };

/**
 * The guard of the routes that add or remove factors (README, "Second factors"). Adding one needs a session — with
 * a recent second factor when the account has one already, so a stolen cookie cannot plant its own factor — or the
 * pending sign-in of an account that must enroll (never one that has a factor: that one must use it). Removing one,
 * or replacing the recovery codes, always needs a recent second factor.
 */
export function factorPrincipals(
  ctx: PluginContext<AuthEnv>,
  deps: { webSession: WebSessions; factors: SecondFactors },
) {
  const ownSession = async (req: Request) => {
    const identity = await deps.webSession.ownFromCookie(req, { changes: true });
    const user = await userStore.findById(ctx.db.pool, identity.sub);
    if (!user) throw authErrors.create('auth.session.missing');
    return { kind: 'session' as const, userId: user.id, email: user.email, sid: identity.sid };
  };
  const requireFresh = async (sid: string) => {
    if (!(await deps.factors.fresh(sid))) throw authErrors.create('auth.second_factor.not_fresh');
  };

  return {
    async adding(req: Request, pendingToken: string | undefined): Promise<FactorPrincipal> {
      if (pendingToken === undefined) {
        const principal = await ownSession(req);
        const state = await deps.factors.state(principal.userId);
        if (state.totp || state.passkeys > 0) await requireFresh(principal.sid);
        return principal;
      }
      const pending = await deps.factors.findPending(pendingToken);
      if (!pending) throw authErrors.create('auth.sign_in.expired');
      if (!pending.enroll) throw authErrors.create('auth.second_factor.enroll_not_allowed');
      const user = await userStore.findById(ctx.db.pool, pending.userId);
      if (!user) throw authErrors.create('auth.sign_in.expired');
      return { kind: 'pending', userId: user.id, email: user.email, pending };
    },

    async changing(req: Request): Promise<Extract<FactorPrincipal, { kind: 'session' }>> {
      const principal = await ownSession(req);
      await requireFresh(principal.sid);
      return principal;
    },

    /** The signed-in account, for reading its factors. */
    reading: (req: Request) =>
      deps.webSession.ownFromCookie(req, { changes: false }).then((identity) => ({
        userId: identity.sub,
        sid: identity.sid,
      })),
  };
}

export type FactorPrincipals = ReturnType<typeof factorPrincipals>;
