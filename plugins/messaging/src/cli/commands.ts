import { z } from 'zod';
import {
  type CommandContext,
  optionProblems,
  type PluginCommand,
  printResult,
  usageError,
} from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import { addClusterMember, addGlobalRecipient, createCluster } from '../service/staff-routing.ts';

/** Wrong arguments, one `--option: problem` per zod issue. */
function usage(ctx: CommandContext<MessagingEnv>, command: string, issues: z.core.$ZodIssue[]): number {
  return usageError(ctx.io, command, optionProblems(issues));
}

const userId = z.string().trim().min(1).max(200);

/**
 * Staff routing until the staff API arrives: clusters (a business number's team), their members, and the
 * global recipients (plugins/messaging/README.md, "Staff routing (CLI until the staff API arrives)"). User ids
 * are the staff identities' `sub`.
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
    const id = await createCluster(ctx, {
      name: parsed.data.name,
      phoneNumberId: parsed.data.phoneNumberId ?? null,
    });
    if (id === null) {
      ctx.io.stderr.write('gatehouse messaging cluster create: that name or phone number id is taken\n');
      return 1;
    }
    printResult(ctx.io, {
      id,
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
    const outcome = await addClusterMember(ctx, parsed.data.cluster, parsed.data.user);
    if (outcome === 'missing') {
      ctx.io.stderr.write('gatehouse messaging cluster add-member: no such cluster\n');
      return 1;
    }
    printResult(ctx.io, { cluster: parsed.data.cluster, user: parsed.data.user, added: outcome === 'added' });
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
    const added = await addGlobalRecipient(ctx, parsed.data.user);
    printResult(ctx.io, { user: parsed.data.user, added });
    return 0;
  },
};

export const messagingCommands = [clusterCreateCommand, clusterAddMemberCommand, recipientAddCommand];
