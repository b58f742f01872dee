import type { Request } from 'express';
import type { PluginContext, Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { passkeyRegisterBeginSchema, passkeyRegisterFinishSchema } from '../domain/passkey-requests.ts';
import { defaultPasskeyName } from '../domain/passkey-rules.ts';
import { authErrors } from '../errors.ts';
import type { PasskeyView } from '../store/passkey-store.ts';
import { pendingSignInStore, type PendingSignIn } from '../store/pending-sign-in-store.ts';
import type { Ceremony } from '../store/webauthn-ceremony-store.ts';
import { auditor } from './factor-route-deps.ts';
import {
  availablePasskeys,
  jointAttempt,
  passkeyHolder,
  type PasskeyRouteDeps,
} from './passkey-route-deps.ts';

/** Who registers: a signed-in session, or a password sign-in that must enroll a factor. */
type Registrant = { kind: 'session'; sid: string } | { kind: 'pending'; pending: PendingSignIn };

/**
 * Registering a passkey (README, "Passkeys"): begin (the options of `navigator.credentials.create`), then finish
 * (the browser's response, verified, stored). With the session cookie — and a recent second factor when the
 * account has one already — or with the pendingToken of a password sign-in that must enroll a factor, whose
 * finish then signs it in.
 */
export function registerPasskeyRegistrationRoutes(ctx: PluginContext<AuthEnv>, deps: PasskeyRouteDeps): void {
  const audit = auditor(ctx);

  /** Who finishes a registration: the principal that began it, checked again (the same rules as at the begin). */
  const registrant = async (req: Request, ceremony: Ceremony & { userId: string }): Promise<Registrant> => {
    if (ceremony.pendingHash) {
      const pending = await pendingSignInStore.find(ctx.db.pool, ceremony.pendingHash, ctx.clock.now());
      if (!pending?.enroll || pending.userId !== ceremony.userId)
        throw authErrors.create('auth.sign_in.expired');
      return { kind: 'pending', pending };
    }
    const principal = await deps.principals.adding(req, undefined);
    if (principal.kind !== 'session' || principal.userId !== ceremony.userId)
      throw authErrors.create('auth.session.missing');
    return { kind: 'session', sid: principal.sid };
  };

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/passkeys/register/begin',
    exempt: true,
    schema: { body: passkeyRegisterBeginSchema },
    handler: async (req, res, { body }) => {
      const passkeys = availablePasskeys(deps);
      const principal = await deps.principals.adding(req, body.pendingToken);
      await passkeyHolder(ctx, deps.deployment, principal.userId);
      const begun = await passkeys.beginRegistration({
        userId: principal.userId,
        email: principal.email,
        pendingHash: principal.kind === 'pending' ? principal.pending.tokenHash : null,
        name: body.name ?? null,
      });
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).json(begun);
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: '/api/v1/auth/passkeys/register/finish',
    exempt: true,
    schema: { body: passkeyRegisterFinishSchema },
    handler: async (req, res, { body }) => {
      const passkeys = availablePasskeys(deps);
      const ceremony = await passkeys.take(body.ceremonyToken, ['register']);
      if (!ceremony?.userId) throw authErrors.create('auth.passkey.ceremony_expired');
      const { userId } = ceremony;
      const principal = await registrant(req, { ...ceremony, userId });
      await passkeyHolder(ctx, deps.deployment, userId);
      const verdict = await passkeys.verifyRegistration(ceremony, body.response);
      if (!verdict.ok) {
        audit(req, 'auth.passkey.failed', userId, { during: 'registration', reason: verdict.reason });
        throw authErrors.create('auth.passkey.invalid');
      }
      const name = body.name ?? ceremony.passkeyName ?? defaultPasskeyName(ctx.clock.now());
      const saved: { passkey?: PasskeyView; recoveryCodes: string[] | null } = { recoveryCodes: null };
      const save = async (tx: Queryable) => {
        const passkey = await passkeys.store(tx, userId, verdict, name);
        if (!passkey) throw authErrors.create('auth.passkey.already_registered');
        saved.passkey = passkey;
        // A registered passkey settles an enrollment the account owed, and brings its first recovery codes.
        saved.recoveryCodes = await deps.factors.enrolled(tx, userId);
      };
      res.setHeader('Cache-Control', 'no-store');
      if (principal.kind === 'pending') {
        // The passkey is the factor the password sign-in had to enroll: the same transaction signs it in.
        await deps.complete(req, res, {
          userId,
          pending: principal.pending,
          factor: 'passkey',
          attempt: jointAttempt(),
          prove: async (tx) => {
            await save(tx);
            return { ok: true };
          },
          extra: () => ({ passkey: saved.passkey, recoveryCodes: saved.recoveryCodes }),
        });
      } else {
        const { sid } = principal;
        await ctx.db.transaction(async (tx) => {
          await save(tx);
          await deps.factors.markVerified(tx, sid);
        });
        res.status(201).json(saved);
      }
      audit(req, 'auth.passkey.registered', userId, { passkeyId: saved.passkey?.id });
    },
  });
}
