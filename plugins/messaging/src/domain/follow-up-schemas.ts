import { z } from 'zod';
import { pageLimit } from './page-limit.ts';

/**
 * The follow-up routes' shapes (README, "Follow-ups"). The same schemas validate requests and describe the
 * routes in the staff API document (openapi/follow-up-paths.ts).
 */

export const FOLLOW_UP_KINDS = ['lead_incomplete', 'no_reply'] as const;
export type FollowUpKind = (typeof FOLLOW_UP_KINDS)[number];

export const FOLLOW_UP_STATUSES = [
  'pending',
  'sent',
  'cancelled',
  'skipped_outside_window',
  'failed_reengagement',
  'failed',
] as const;
export type FollowUpStatus = (typeof FOLLOW_UP_STATUSES)[number];

export const MAX_FOLLOW_UP_TEXT = 4096;
export const MAX_DELAY_HOURS = 720;

const text = z
  .string()
  .min(1)
  .max(MAX_FOLLOW_UP_TEXT)
  .regex(/\S/, { error: 'must not be blank' })
  .meta({ description: 'A free-form text, sent inside the 24-hour customer-service window.' });

/** An approved message template of the business account, as the send API names it. */
export const TemplateSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9_]{1,512}$/, { error: 'must be a template name: lower-case letters, digits, _' }),
    languageCode: z
      .string()
      .regex(/^[a-z]{2,3}(?:_[A-Z]{2})?$/, { error: 'must be a language code such as id or en_US' }),
    parameters: z
      .array(z.string().min(1).max(1024))
      .max(20)
      .default([])
      .meta({ description: "The body's parameters, in order ({{1}}, {{2}}, …)." }),
  })
  .meta({
    id: 'FollowUpTemplate',
    description: 'An approved template: the only message allowed outside the 24-hour window.',
  });
export type FollowUpTemplate = z.output<typeof TemplateSchema>;

const atLeastOne = (body: { text?: unknown; template?: unknown }) =>
  (body.text ?? null) !== null || (body.template ?? null) !== null;
const AT_LEAST_ONE = { error: 'give text, template or both' };

export const RuleInputSchema = z
  .strictObject({
    kind: z.enum(FOLLOW_UP_KINDS),
    delayHours: z.int().min(1).max(MAX_DELAY_HOURS),
    text: text.nullable().default(null),
    template: TemplateSchema.nullable().default(null),
    enabled: z.boolean().default(true),
  })
  .refine(atLeastOne, AT_LEAST_ONE)
  .meta({ id: 'FollowUpRuleInput', description: 'A follow-up rule; a PUT replaces it whole.' });
export type RuleInput = z.output<typeof RuleInputSchema>;

export const RuleSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(FOLLOW_UP_KINDS),
    delayHours: z.int(),
    text: z.string().nullable(),
    template: TemplateSchema.nullable(),
    enabled: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'FollowUpRule' });
export type RuleView = z.output<typeof RuleSchema>;

export const RuleListSchema = z.object({ items: z.array(RuleSchema) }).meta({ id: 'FollowUpRuleList' });

export const IdParamsSchema = z.strictObject({
  id: z.uuid({ error: 'must be an id' }),
});

export const QueueQuerySchema = z.strictObject({
  status: z.enum(FOLLOW_UP_STATUSES).optional(),
  conversationId: z.uuid().optional(),
  limit: pageLimit,
});

export const TriggerInputSchema = z
  .strictObject({
    conversationId: z.uuid(),
    text: text.nullable().default(null),
    template: TemplateSchema.nullable().default(null),
  })
  .refine(atLeastOne, AT_LEAST_ONE)
  .meta({ id: 'FollowUpTriggerInput', description: 'A follow-up sent now, by hand.' });
export type TriggerInput = z.output<typeof TriggerInputSchema>;

export const FollowUpSchema = z
  .object({
    id: z.uuid(),
    conversationId: z.uuid(),
    ruleId: z.uuid().nullable().meta({ description: 'null: a manual follow-up (or its rule was deleted).' }),
    manual: z.boolean(),
    dueAt: z.iso.datetime(),
    status: z.enum(FOLLOW_UP_STATUSES),
    text: z.string().nullable(),
    template: TemplateSchema.nullable(),
    attempts: z.int(),
    lastError: z.string().nullable(),
    messageId: z.uuid().nullable().meta({ description: 'The outbox message that carries it, once queued.' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'FollowUp' });
export type FollowUpView = z.output<typeof FollowUpSchema>;

export const FollowUpListSchema = z.object({ items: z.array(FollowUpSchema) }).meta({ id: 'FollowUpList' });
