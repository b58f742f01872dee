import { type PluginCommand, usageError } from '../../../../gateway/src/plugin-api.ts';
import type { AuthEnv } from '../config.ts';
import { accountEmailSchema } from '../domain/email.ts';
import { WILDCARD_ROLE } from '../domain/roles.ts';
import { checkNewPassword } from '../service/new-password.ts';
import { createPasswordHasher } from '../service/password-hasher.ts';
import { userStore } from '../store/user-store.ts';
import { loadDenylist } from '../service/password-denylist.ts';
import { readPassword } from './read-password.ts';

/**
 * `gatehouse admin create --email <address>` (README, "Commands"): the first local administrator, holding
 * the wildcard admin role. The password comes from stdin (or a no-echo prompt), never from an argument,
 * where it would show in the process list and shell history.
 */
export const createAdminCommand: PluginCommand<AuthEnv> = {
  name: ['admin', 'create'],
  summary: 'Create a local administrator with the wildcard admin role; the password is read from stdin',
  usage: '--email <address>',
  options: { email: { type: 'string' } },
  async run(ctx, values) {
    const email = accountEmailSchema.safeParse(values.email);
    if (!email.success) {
      return usageError(ctx.io, 'admin create', '--email <address> is required and must be an email address');
    }
    const raw = await readPassword(ctx.io);
    if (raw === null) {
      ctx.io.stderr.write('gatehouse admin create: the two passwords differ\n');
      return 1;
    }
    const policy = await checkNewPassword(ctx.db, loadDenylist(), { password: raw, email: email.data });
    if (!policy.ok) {
      for (const violation of policy.violations) {
        ctx.io.stderr.write(`gatehouse admin create: password: ${violation.message} (${violation.code})\n`);
      }
      return 1;
    }
    const password = policy.password;
    const hasher = await createPasswordHasher({ maxConcurrent: 1, maxWaitMs: 60_000 });
    const hash = await hasher.hash(password);
    const created = await ctx.db.transaction(async (tx) => {
      const user = await userStore.insertLocal(tx, email.data, hash);
      if (user) await userStore.grantRole(tx, user.id, WILDCARD_ROLE, 'cli');
      return user;
    });
    if (!created) {
      ctx.io.stderr.write(`gatehouse admin create: an account with the email ${email.data} already exists\n`);
      return 1;
    }
    await ctx.audit.write({
      kind: 'auth.register',
      actor: 'cli',
      payload: { userId: created.id, provider: 'local', via: 'cli' },
    });
    await ctx.audit.write({
      kind: 'auth.role.granted',
      actor: 'cli',
      payload: { userId: created.id, role: WILDCARD_ROLE },
    });
    ctx.io.stdout.write(`created administrator ${email.data} (${created.id})\n`);
    return 0;
  },
};
