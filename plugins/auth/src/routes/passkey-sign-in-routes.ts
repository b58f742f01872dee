import type { Request, Response } from 'express';
import { isGatewayError, type PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { mayUsePassword } from '../deployment/validate.ts';
import { passkeySignInBeginSchema, passkeySignInFinishSchema } from '../domain/passkey-requests.ts';
import { authErrors } from '../errors.ts';
import type { AssertionVerdict } from '../service/passkeys.ts';
import { FRESH_FACTOR_SECONDS } from '../service/second-factors.ts';
import type { Attempt } from '../service/throttle.ts';
import type { StoredCredential } from '../store/passkey-store.ts';
import { pendingSignInStore, type PendingSignIn } from '../store/pending-sign-in-store.ts';
import { userStore } from '../store/user-store.ts';
import type { Ceremony } from '../store/webauthn-ceremony-store.ts';
import { auditor } from './factor-route-deps.ts';
import {
  availablePasskeys,
  clientAddress,
  jointAttempt,
  type PasskeyRouteDeps,
} from './passkey-route-deps.ts';
import type { Completion } from './sign-in-completion.ts';

type Verified = Extract<AssertionVerdict, { ok: true }>;

/**
 * Signing in with a passkey (README, "Passkeys"): usernameless (the authenticator names the account; a complete
 * two-factor sign-in by itself), the second step of a password sign-in, or a step-up of the signed-in session.
 * Every refusal answers the same 401 `auth.passkey.invalid`; the reason is audited only.
 */
export function registerPasskeySignInRoutes(ctx: PluginContext<AuthEnv>, deps: PasskeyRouteDeps): void {
  const audit = auditor(ctx);

  /** The pending sign-in a ceremony continues, if it is still waiting for its second factor. */
  const pendingOf = async (ceremony: Ceremony): Promise<PendingSignIn | null> => {
    if (!ceremony.pendingHash) return null;
    const pending = await pendingSignInStore.find(ctx.db.pool, ceremony.pendingHash, ctx.clock.now());
    return pending && !pending.enroll && pending.userId === ceremony.userId ? pending : null;
  };

  /** A refused assertion: audited with its reason, counted on the pending sign-in, answered generically. */
  const refuse = async (
    req: Request,
    ceremony: Ceremony,
    userId: string | null,
    payload: Record<string, unknown>,
    kind = 'auth.passkey.failed',
  ): Promise<never> => {
    audit(req, kind, userId, payload);
    const pending = await pendingOf(ceremony);
    if (pending) await deps.factors.pendingFailed(pending);
    if (ceremony.purpose === 'sign-in')
      deps.signIns.record(pending?.method ?? 'passkey', 'second_factor_failed');
    throw authErrors.create('auth.passkey.invalid');
  };

  /**
   * Who may sign in with a passkey alone: the accounts that may use a password in this mode (everyone in local and
   * local+oidc; break-glass admins in oidc mode and with LDAP_MODE=only), never a directory-managed or disabled one.
   */
  const soleFactorRefusal = async (userId: string): Promise<string | null> => {
    const user = await userStore.findById(ctx.db.pool, userId);
    if (!user) return 'no_account';
    if (user.disabledAt !== null) return 'disabled';
    if (user.directoryManaged) return 'directory_managed';
    return mayUsePassword(deps.deployment.password, user.roles) ? null : 'mode';
  };

  /** `complete`, with its generic refusal answered as a passkey's. */
  const complete = async (req: Request, res: Response, completion: Completion) => {
    try {
      await deps.complete(req, res, completion);
    } catch (err) {
      if (isGatewayError(err) && err.code === 'auth.second_factor.invalid')
        throw authErrors.create('auth.passkey.invalid');
      throw err;
    }
  };

  const stepUp = async (
    req: Request,
    res: Response,
    sid: string,
    stored: StoredCredential,
    verdict: Verified,
  ) => {
    const passkeys = availablePasskeys(deps);
    const result = await ctx.db.transaction(async (tx) => {
      const advanced = await passkeys.advance(tx, stored.id, verdict);
      if (advanced.ok) await deps.factors.markVerified(tx, sid);
      return advanced;
    });
    if (!result.ok) {
      audit(req, 'auth.passkey.replayed', stored.userId, { passkeyId: stored.id, during: 'step-up' });
      throw authErrors.create('auth.passkey.invalid');
    }
    audit(req, 'auth.step_up', stored.userId, { factor: 'passkey' });
    const now = ctx.clock.now();
    res.json({ factorVerifiedAt: now, freshUntil: new Date(now.getTime() + FRESH_FACTOR_SECONDS * 1000) });
  };

  const signIn = async (
    req: Request,
    res: Response,
    found: { ceremony: Ceremony; stored: StoredCredential; verdict: Verified; attempt: Attempt },
  ) => {
    const { ceremony, stored, verdict, attempt } = found;
    const pending = await pendingOf(ceremony);
    if (ceremony.pendingHash && !pending) throw authErrors.create('auth.sign_in.expired');
    if (!pending) {
      const reason = await soleFactorRefusal(stored.userId);
      if (reason) await refuse(req, ceremony, stored.userId, { passkeyId: stored.id, reason });
    }
    await complete(req, res, {
      userId: stored.userId,
      pending,
      factor: 'passkey',
      // Oidc mode or LDAP_MODE=only: a passkey alone is a break-glass admin's way in, audited as such.
      breakGlass: pending === null && deps.deployment.password === 'break-glass-admins',
      attempt,
      prove: (tx) => availablePasskeys(deps).advance(tx, stored.id, verdict),
    });
  };

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/passkeys/sign-in/begin',
    exempt: true,
    schema: { body: passkeySignInBeginSchema },
    handler: async (req, res, { body }) => {
      const passkeys = availablePasskeys(deps);
      let ceremony: Parameters<typeof passkeys.beginAuthentication>[0] = {
        purpose: 'sign-in',
        userId: null,
        pendingHash: null,
      };
      if ('pendingToken' in body) {
        const pending = await deps.factors.findPending(body.pendingToken);
        // A sign-in that must enroll has no passkey to prove yet.
        if (!pending || pending.enroll) throw authErrors.create('auth.sign_in.expired');
        ceremony = { purpose: 'sign-in', userId: pending.userId, pendingHash: pending.tokenHash };
      } else if ('stepUp' in body) {
        const identity = await deps.webSession.ownFromCookie(req, { changes: true });
        ceremony = { purpose: 'step-up', userId: identity.sub, pendingHash: null };
      }
      const begun = await passkeys.beginAuthentication(ceremony);
      if (!begun) throw authErrors.create('auth.passkey.not_found');
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(begun);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/passkeys/sign-in/finish',
    exempt: true,
    schema: { body: passkeySignInFinishSchema },
    handler: async (req, res, { body }) => {
      const passkeys = availablePasskeys(deps);
      // Counted before anything is checked: no account is known yet, the address is.
      const byAddress = await deps.throttle.reserve([['factor:ip', clientAddress(req)]]);
      const ceremony = await passkeys.take(body.ceremonyToken, ['sign-in', 'step-up']);
      if (!ceremony) {
        audit(req, 'auth.passkey.failed', null, { reason: 'ceremony' });
        throw authErrors.create('auth.passkey.ceremony_expired');
      }
      const session =
        ceremony.purpose === 'step-up' ? await deps.webSession.ownFromCookie(req, { changes: true }) : null;
      if (session && session.sub !== ceremony.userId) throw authErrors.create('auth.session.missing');
      const stored = await passkeys.credential(body.response.id);
      if (!stored || (ceremony.userId !== null && stored.userId !== ceremony.userId)) {
        const reason = stored ? 'other_account' : 'unknown_credential';
        return refuse(req, ceremony, ceremony.userId, { reason });
      }
      // The credential names the account: its own limit applies from here.
      const attempt = jointAttempt(
        byAddress,
        await deps.throttle.reserve([['factor:account', stored.userId]]),
      );
      const verdict = await passkeys.verifyAssertion(ceremony, body.response, stored);
      if (!verdict.ok) {
        if (verdict.reason === 'clone_suspected') {
          const { stored: storedCount, presented } = verdict;
          const payload = { passkeyId: stored.id, stored: storedCount, presented };
          return refuse(req, ceremony, stored.userId, payload, 'auth.passkey.clone_suspected');
        }
        return refuse(req, ceremony, stored.userId, { passkeyId: stored.id, reason: verdict.reason });
      }
      res.setHeader('Cache-Control', 'no-store');
      if (session) {
        await stepUp(req, res, session.sid, stored, verdict);
        await attempt.succeeded();
        return;
      }
      await signIn(req, res, { ceremony, stored, verdict, attempt });
    },
  });
}
