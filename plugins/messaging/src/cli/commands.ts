import { z } from 'zod';
import {
  type CommandContext,
  type PluginCommand,
  printResult,
  usageError,
} from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';

/** Wrong arguments, one `--option: problem` per zod issue. */
function usage(ctx: CommandContext<MessagingEnv>, command: string, issues: z.core.$ZodIssue[]): number {
  return usageError(ctx.io, command, issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('; '));
}

const userId = z.string().trim().min(1).max(200);

/**
 * Staff routing until the staff API arrives (issue 6, point 7): clusters (a business number's team), their
 * members, and the global recipients. User ids are the staff identities' `sub`.
 */
export const clusterCreateCommand: PluginCommand<MessagingEnv> = {
  name: ['messaging', 'cluster', 'create'],
  summary: 'Create a cluster of staff, optionally routing a provider phone_number_id to it',
  usage: '--name <name> [--phone-number-id <id>]',
  options: { name: { type: 'string' }, 'phone-number-id': { type: 'string' } },
  async run(ctx, values) {
    const parsed = z
      .object({
        name: z.string().trim().min(1).max(200),
        phoneNumberId: z.string().min(1).max(100).optional(),
      })
      .safeParse({ name: values.name, phoneNumberId: values['phone-number-id'] });
    if (!parsed.success) return usage(ctx, 'messaging cluster create', parsed.error.issues);
    const { rows } = await ctx.db.query<{ id: string }>(
      `INSERT INTO messaging_clusters (name, phone_number_id, created_at) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING id`,
      [parsed.data.name, parsed.data.phoneNumberId ?? null, ctx.clock.now()],
    );
    if (!rows[0]) {
      ctx.io.stderr.write('gatehouse messaging cluster create: that name or phone number id is taken\n');
      return 1;
    }
    // Conversations that already came in on that number join the cluster.
    if (parsed.data.phoneNumberId) {
      await ctx.db.query(
        'UPDATE messaging_conversations SET cluster_id = $1 WHERE phone_number_id = $2 AND cluster_id IS NULL',
        [rows[0].id, parsed.data.phoneNumberId],
      );
    }
    printResult(ctx.io, {
      id: rows[0].id,
      name: parsed.data.name,
      phoneNumberId: parsed.data.phoneNumberId ?? null,
    });
    return 0;
  },
};

export const clusterAddMemberCommand: PluginCommand<MessagingEnv> = {
  name: ['messaging', 'cluster', 'add-member'],
  summary: "Add a staff user to a cluster (they are notified of the cluster's escalations)",
  usage: '--cluster <id> --user <user id>',
  options: { cluster: { type: 'string' }, user: { type: 'string' } },
  async run(ctx, values) {
    const parsed = z.object({ cluster: z.uuid(), user: userId }).safeParse(values);
    if (!parsed.success) return usage(ctx, 'messaging cluster add-member', parsed.error.issues);
    const { rowCount } = await ctx.db.query(
      `INSERT INTO messaging_cluster_members (cluster_id, user_id)
       SELECT id, $2 FROM messaging_clusters WHERE id = $1 ON CONFLICT DO NOTHING`,
      [parsed.data.cluster, parsed.data.user],
    );
    const exists = await ctx.db.query('SELECT 1 FROM messaging_clusters WHERE id = $1', [
      parsed.data.cluster,
    ]);
    if (exists.rowCount === 0) {
      ctx.io.stderr.write('gatehouse messaging cluster add-member: no such cluster\n');
      return 1;
    }
    printResult(ctx.io, { cluster: parsed.data.cluster, user: parsed.data.user, added: rowCount === 1 });
    return 0;
  },
};

export const recipientAddCommand: PluginCommand<MessagingEnv> = {
  name: ['messaging', 'recipient', 'add'],
  summary: 'Add a global recipient (notified of escalations of every cluster)',
  usage: '--user <user id>',
  options: { user: { type: 'string' } },
  async run(ctx, values) {
    const parsed = z.object({ user: userId }).safeParse(values);
    if (!parsed.success) return usage(ctx, 'messaging recipient add', parsed.error.issues);
    const { rowCount } = await ctx.db.query(
      'INSERT INTO messaging_global_recipients (user_id, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [parsed.data.user, ctx.clock.now()],
    );
    printResult(ctx.io, { user: parsed.data.user, added: rowCount === 1 });
    return 0;
  },
};

export const messagingCommands = [clusterCreateCommand, clusterAddMemberCommand, recipientAddCommand];
