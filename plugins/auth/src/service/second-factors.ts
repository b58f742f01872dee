import type { Clock, Database, Queryable } from '../../../../gateway/src/plugin-api.ts';
import { newOneTimeToken, tokenHash } from '../domain/one-time-token.ts';
import { newRecoveryCodes, normaliseRecoveryCode, recoveryCodeHash } from '../domain/recovery-code.ts';
import { secondFactorStep, type SecondFactorStep } from '../domain/second-factor-rule.ts';
import { factorStore, type FactorState } from '../store/factor-store.ts';
import { pendingSignInStore, type PendingSignIn } from '../store/pending-sign-in-store.ts';
import { recoveryCodeStore } from '../store/recovery-code-store.ts';
import { totpStore } from '../store/totp-store.ts';
import { userStore, type UserRow } from '../store/user-store.ts';
import type { Totp, TotpEnrollment } from './totp.ts';

/** How long a password sign-in waits for its second factor. */
export const PENDING_SIGN_IN_SECONDS = 300;
/** Wrong codes one pending sign-in takes before it is dropped (the limits also count them). */
export const PENDING_MAX_ATTEMPTS = 5;
/** How recent a proven second factor must be to remove a factor or make new recovery codes. */
export const FRESH_FACTOR_SECONDS = 600;

/** Why a code was refused; audited, never told apart to the client. */
export type CodeRefusal = 'wrong' | 'replayed' | 'not_enrolled';
export type CodeVerdict = { ok: true } | { ok: false; reason: CodeRefusal };

/** The second step a password sign-in needs, with the token the client carries to it. */
export interface PendingStep {
  step: Exclude<SecondFactorStep, 'none'>;
  token: string;
  expiresAt: Date;
  factors: FactorState;
}

/**
 * Second factors (README, "Second factors"): the decision after a password, the pending sign-in, TOTP codes with
 * their replay guard and recovery codes. Every acceptance is a compare-and-set meant to run in the transaction that
 * issues the session (or records the step-up), so a code is used by exactly one request however many race.
 */
export function createSecondFactors(deps: {
  db: Database;
  clock: Clock;
  totp: Totp;
  /** Whether passkeys can be used in this deployment (the relying party resolved). */
  passkeysAvailable: boolean;
}) {
  const now = () => deps.clock.now();

  const acceptTotp = async (
    tx: Queryable,
    userId: string,
    code: string,
    confirm: boolean,
  ): Promise<CodeVerdict> => {
    const row = await totpStore.find(tx, userId);
    if (!row || (row.confirmedAt === null) !== confirm) return { ok: false, reason: 'not_enrolled' };
    const step = await deps.totp.check(row, code);
    if (step === null) return { ok: false, reason: 'wrong' };
    if (row.lastStep !== null && step <= row.lastStep) return { ok: false, reason: 'replayed' };
    const accepted = await totpStore.accept(tx, userId, step, { confirm, now: now(), keyId: row.keyId });
    // Lost the race to a request with the same (or a newer) code: that one used it.
    return accepted ? { ok: true } : { ok: false, reason: 'replayed' };
  };

  return {
    /** After a correct password: the step the sign-in still needs, and its pending row when it needs one. */
    async afterPassword(
      user: UserRow,
      options: { method: PendingSignIn['method']; breakGlass: boolean },
    ): Promise<PendingStep | null> {
      const [factors, settings] = await Promise.all([
        factorStore.state(deps.db, user.id),
        userStore.settings(deps.db),
      ]);
      // Passkeys made while passkeys were on cannot be used once they are off: such an account is not locked out
      // behind a factor it cannot present, it owes a usable one instead (README, "Passkeys").
      const unusablePasskeys = !deps.passkeysAvailable && factors.passkeys > 0;
      const step = secondFactorStep({
        totp: factors.totp,
        passkeys: deps.passkeysAvailable ? factors.passkeys : 0,
        breakGlass: options.breakGlass,
        requireTotp: settings.requireTotp,
        directoryManaged: user.directoryManaged,
        enrollmentRequired: factors.enrollmentRequired || unusablePasskeys,
      });
      if (step === 'none') return null;
      const { token, hash } = newOneTimeToken();
      const expiresAt = await pendingSignInStore.create(deps.db, {
        tokenHash: hash,
        userId: user.id,
        method: options.method,
        enroll: step === 'enroll',
        breakGlass: options.breakGlass,
        now: now(),
        ttlSeconds: PENDING_SIGN_IN_SECONDS,
      });
      return { step, token, expiresAt, factors };
    },

    findPending: (token: string) => pendingSignInStore.find(deps.db, tokenHash(token), now()),

    /** Uses up a pending sign-in inside the session's transaction; false when another request used it. */
    consumePending: (tx: Queryable, pending: PendingSignIn) =>
      pendingSignInStore.consume(tx, pending.tokenHash, now()),

    /** A wrong code against a pending sign-in: counted, and the sign-in dropped at the limit. */
    pendingFailed: (pending: PendingSignIn) =>
      pendingSignInStore.recordFailure(deps.db, pending.tokenHash, PENDING_MAX_ATTEMPTS),

    /** A TOTP code of the confirmed enrollment (replay guard included). */
    acceptTotp: (tx: Queryable, userId: string, code: string) => acceptTotp(tx, userId, code, false),

    /** The first code of a new enrollment: confirms it, and burns the code like any other. */
    confirmTotp: (tx: Queryable, userId: string, code: string) => acceptTotp(tx, userId, code, true),

    /** Starts (or restarts) a TOTP enrollment; null when the account already has a confirmed one. */
    async beginTotp(userId: string, accountLabel: string): Promise<Omit<TotpEnrollment, 'sealed'> | null> {
      const enrollment = deps.totp.enroll(accountLabel);
      if (!(await totpStore.begin(deps.db, userId, enrollment.sealed, now()))) return null;
      const { sealed: _sealed, ...shown } = enrollment;
      return shown;
    },

    /** Uses one recovery code; exactly one caller wins a code presented many times at once. */
    async useRecoveryCode(tx: Queryable, userId: string, code: string): Promise<CodeVerdict> {
      const normalised = normaliseRecoveryCode(code);
      if (normalised === null) return { ok: false, reason: 'wrong' };
      const used = await recoveryCodeStore.use(tx, userId, recoveryCodeHash(normalised), now());
      return used ? { ok: true } : { ok: false, reason: 'wrong' };
    },

    /** A new set of recovery codes, replacing the old one; the codes are returned once and never again. */
    async newRecoveryCodes(tx: Queryable, userId: string): Promise<string[]> {
      const codes = newRecoveryCodes();
      const hashes = codes.map((code) => recoveryCodeHash(normaliseRecoveryCode(code) as string));
      await recoveryCodeStore.replace(tx, userId, hashes, now());
      return codes;
    },

    /**
     * After a factor was enrolled: the account no longer owes an enrollment, and it gets its first recovery codes
     * when it has none (returned once; null when it already had some).
     */
    async enrolled(tx: Queryable, userId: string): Promise<string[] | null> {
      await factorStore.setEnrollmentRequired(tx, userId, false);
      const state = await factorStore.state(tx, userId);
      return state.recoveryCodes > 0 ? null : this.newRecoveryCodes(tx, userId);
    },

    state: (userId: string) => factorStore.state(deps.db, userId),

    /** Whether the session proved a second factor recently enough to change the account's factors. */
    async fresh(sessionId: string): Promise<boolean> {
      const at = await factorStore.sessionVerifiedAt(deps.db, sessionId);
      return at !== null && now().getTime() - at.getTime() <= FRESH_FACTOR_SECONDS * 1000;
    },

    markVerified: (tx: Queryable, sessionId: string) => factorStore.markSessionVerified(tx, sessionId, now()),
  };
}

export type SecondFactors = ReturnType<typeof createSecondFactors>;
