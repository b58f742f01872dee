import { z } from 'zod';
import {
  type CommandContext,
  isGatewayError,
  type PluginCommand,
  optionProblems,
  printResult,
  usageError,
} from '../../../../gateway/src/plugin-api.ts';
import type { KycEnv } from '../config.ts';
import { QUOTA_PERIODS } from '../domain/quota-period.ts';
import { createTenantService } from '../service/tenant-service.ts';
import { keyView, tenantView } from '../service/tenants.ts';
import { webhookTargets } from '../webhooks/webhook-targets.ts';

const CLI = { actor: 'cli' };

/** Runs `work`, turning a catalogue error (unknown tenant, say) into a message and exit code 1. */
async function guarded(ctx: CommandContext<KycEnv>, command: string, work: () => Promise<number>) {
  try {
    return await work();
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    ctx.io.stderr.write(`gatehouse ${command}: ${err.detail} (${err.code})\n`);
    return 1;
  }
}

const services = (ctx: CommandContext<KycEnv>) =>
  createTenantService({
    db: ctx.db,
    clock: ctx.clock,
    audit: ctx.audit,
    webhookTargets: webhookTargets({ allowPrivate: ctx.config.KYC_WEBHOOK_ALLOW_PRIVATE }),
  });

export const tenantCreateCommand: PluginCommand<KycEnv> = {
  name: ['kyc', 'tenant', 'create'],
  summary: 'Create a KYC tenant (sandbox tenants never consume quota); prints it as JSON',
  usage: '--name <name> [--sandbox] [--quota <n>] [--period day|month|lifetime] [--webhook-url <url>]',
  options: {
    name: { type: 'string' },
    sandbox: { type: 'boolean' },
    quota: { type: 'string' },
    period: { type: 'string' },
    'webhook-url': { type: 'string' },
  },
  async run(ctx, values) {
    const command = 'kyc tenant create';
    const parsed = z
      .object({
        name: z.string().trim().min(1).max(200),
        quota: z.coerce.number().int().min(0).max(100_000_000).default(0),
        period: z.enum(QUOTA_PERIODS).default('month'),
        webhookUrl: z.url({ protocol: /^https?$/ }).optional(),
      })
      .safeParse({
        name: values.name,
        quota: values.quota,
        period: values.period,
        webhookUrl: values['webhook-url'],
      });
    if (!parsed.success) {
      return usageError(ctx.io, command, optionProblems(parsed.error.issues));
    }
    const input = {
      name: parsed.data.name,
      sandbox: values.sandbox === true,
      quotaLimit: parsed.data.quota,
      quotaPeriod: parsed.data.period,
      webhookUrl: parsed.data.webhookUrl ?? null,
    };
    // A webhook URL that points to a private address is refused like a usage error of the API.
    return guarded(ctx, command, async () => {
      const { tenant, webhookSecret } = await services(ctx).create(input, CLI);
      printResult(ctx.io, { ...tenantView(tenant), ...(webhookSecret ? { webhookSecret } : {}) });
      if (!tenant.sandbox && tenant.quotaLimit === 0) {
        ctx.io.stderr.write(
          'note: quota 0: live initiations answer 402 until --quota is raised (admin API)\n',
        );
      }
      return 0;
    });
  },
};

export const tenantListCommand: PluginCommand<KycEnv> = {
  name: ['kyc', 'tenant', 'list'],
  summary: 'List KYC tenants as JSON',
  usage: '',
  options: {},
  async run(ctx) {
    printResult(ctx.io, (await services(ctx).list()).map(tenantView));
    return 0;
  },
};

export const keyCreateCommand: PluginCommand<KycEnv> = {
  name: ['kyc', 'key', 'create'],
  summary: 'Create an API key for a tenant; the key is printed once and never stored',
  usage: '--tenant <id> [--label <text>] [--expires-at <ISO-8601 time>]',
  options: { tenant: { type: 'string' }, label: { type: 'string' }, 'expires-at': { type: 'string' } },
  async run(ctx, values) {
    const command = 'kyc key create';
    const parsed = z
      .object({
        tenant: z.uuid(),
        label: z.string().trim().min(1).max(200).optional(),
        expiresAt: z.iso.datetime({ offset: true }).optional(),
      })
      .safeParse({ tenant: values.tenant, label: values.label, expiresAt: values['expires-at'] });
    if (!parsed.success) {
      return usageError(ctx.io, command, optionProblems(parsed.error.issues));
    }
    return guarded(ctx, command, async () => {
      const { key, row } = await services(ctx).createKey(
        parsed.data.tenant,
        {
          label: parsed.data.label ?? null,
          expiresAt: parsed.data.expiresAt ? new Date(parsed.data.expiresAt) : null,
        },
        CLI,
      );
      printResult(ctx.io, { ...keyView(row), key });
      ctx.io.stderr.write('Store this key now: it is shown once and cannot be recovered.\n');
      return 0;
    });
  },
};

export const keyRevokeCommand: PluginCommand<KycEnv> = {
  name: ['kyc', 'key', 'revoke'],
  summary: 'Revoke an API key by its id; every replica refuses it at once',
  usage: '--id <key id>',
  options: { id: { type: 'string' } },
  async run(ctx, values) {
    const command = 'kyc key revoke';
    const parsed = z.uuid().safeParse(values.id);
    if (!parsed.success) return usageError(ctx.io, command, '--id <key id> is required and must be a key id');
    return guarded(ctx, command, async () => {
      printResult(ctx.io, keyView(await services(ctx).revokeKey(parsed.data, CLI)));
      return 0;
    });
  },
};

export const kycCommands = [tenantCreateCommand, tenantListCommand, keyCreateCommand, keyRevokeCommand];
