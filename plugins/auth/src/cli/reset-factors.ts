import { type PluginCommand, usageError } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { signInEmailSchema } from '../domain/email.ts';
import { factorStore } from '../store/factor-store.ts';
import { passkeyStore } from '../store/passkey-store.ts';
import { recoveryCodeStore } from '../store/recovery-code-store.ts';
import { sessionStore } from '../store/session-store.ts';
import { totpStore } from '../store/totp-store.ts';
import { userStore } from '../store/user-store.ts';

/**
 * `gatehouse admin reset-factors --email <address>` (README, "Recovery"): the last resort when the only
 * administrator lost every second factor and no colleague can reset it over HTTP. Run on the server (access to the
 * database is the proof), it removes the account's authenticator app, passkeys and recovery codes, ends its
 * sessions, and makes it enroll a factor at its next sign-in. Audited `auth.factors.reset`.
 */
export const resetFactorsCommand: PluginCommand<AuthEnv> = {
  name: ['admin', 'reset-factors'],
  summary:
    "Remove an account's authenticator app, passkeys and recovery codes (it enrolls again at next sign-in)",
  usage: '--email <address>',
  options: { email: { type: 'string' } },
  async run(ctx, values) {
    const email = signInEmailSchema.safeParse(values.email);
    if (!email.success) {
      return usageError(
        ctx.io,
        'admin reset-factors',
        '--email <address> is required and must be an email address',
      );
    }
    const user = await userStore.findByEmail(ctx.db, email.data);
    if (!user) {
      ctx.io.stderr.write(`gatehouse admin reset-factors: no account has the email ${email.data}\n`);
      return 1;
    }
    const removed = await ctx.db.transaction(async (tx) => {
      const totp = await totpStore.remove(tx, user.id);
      const passkeys = await passkeyStore.removeAll(tx, user.id);
      const recoveryCodes = await recoveryCodeStore.removeAll(tx, user.id);
      await factorStore.setEnrollmentRequired(tx, user.id, true);
      const sessions = await sessionStore.revokeAllForUser(tx, user.id, 'factors reset');
      return { totp, passkeys, recoveryCodes, sessions };
    });
    await ctx.audit.write({
      kind: 'auth.factors.reset',
      actor: 'cli',
      // `authenticatorApp`: the audit writer redacts a key named `totp` as if it held a code.
      payload: {
        userId: user.id,
        authenticatorApp: removed.totp,
        passkeys: removed.passkeys,
        recoveryCodes: removed.recoveryCodes,
        sessions: removed.sessions,
      },
    });
    ctx.io.stdout.write(
      `reset the second factors of ${user.email} (${user.id}): authenticator app ${removed.totp ? 'removed' : 'none'}, ` +
        `${removed.passkeys} passkey(s) and ${removed.recoveryCodes} recovery code(s) removed, ` +
        `${removed.sessions} session(s) ended; a factor is enrolled at the next sign-in\n`,
    );
    return 0;
  },
};
