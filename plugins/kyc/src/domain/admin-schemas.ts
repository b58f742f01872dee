import { z } from 'zod';
import { QUOTA_PERIODS } from './quota-period.ts';
import { DECISIONS } from './state-machine.ts';

/**
 * The staff API's request shapes (`/api/v1/admin/kyc/...`): the route table validates each body and path
 * against them before a handler runs. Internal, so they stay out of the OpenAPI document.
 */

const webhookUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

/** The `:id` of an admin path: a tenant, key, verification or delivery id. */
export const AdminIdParamsSchema = z.object({ id: z.uuid({ error: 'must be an id' }) });

export const TenantCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  sandbox: z.boolean().default(false),
  quotaLimit: z.int().min(0).max(100_000_000).default(0),
  quotaPeriod: z.enum(QUOTA_PERIODS).default('month'),
  webhookUrl: webhookUrl.nullable().default(null),
});

export const TenantUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    quotaLimit: z.int().min(0).max(100_000_000).optional(),
    quotaPeriod: z.enum(QUOTA_PERIODS).optional(),
    webhookUrl: webhookUrl.nullable().optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, { error: 'nothing to change' });

export const KeyCreateSchema = z.strictObject({
  label: z.string().trim().min(1).max(200).nullable().default(null),
  expiresAt: z.iso.datetime({ offset: true }).nullable().default(null),
});

export const DecisionSchema = z.strictObject({
  decision: z.enum(DECISIONS),
  reason: z.string().trim().min(1).max(1000),
});
