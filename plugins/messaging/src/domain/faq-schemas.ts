import { z } from 'zod';
import { pageLimit } from './page-limit.ts';

/**
 * The FAQ routes' shapes (README, "FAQ"). The same schemas validate requests and describe the routes in the
 * staff API document (openapi/faq-paths.ts).
 */

export const FAQ_LANGUAGES = ['id', 'en'] as const;
export const MAX_FAQ_QUESTIONS = 20;
export const MAX_FAQ_QUESTION = 500;
export const MAX_FAQ_ANSWER = 4096;

const notBlank = { error: 'must not be blank' };

export const FaqQuestionsSchema = z
  .array(z.string().min(1).max(MAX_FAQ_QUESTION).regex(/\S/, notBlank))
  .min(1)
  .max(MAX_FAQ_QUESTIONS)
  .meta({ description: `The question variants, 1 to ${MAX_FAQ_QUESTIONS}; each is answered by \`answer\`.` });

export const FaqAnswerSchema = z.string().min(1).max(MAX_FAQ_ANSWER).regex(/\S/, notBlank);
export const FaqLanguageSchema = z.enum(FAQ_LANGUAGES).meta({ id: 'FaqLanguage' });

export const FaqIdParamsSchema = z.strictObject({
  id: z.uuid({ error: 'must be a FAQ entry id' }),
});

export const FaqConflictIdParamsSchema = z.strictObject({
  id: z.uuid({ error: 'must be a FAQ conflict id' }),
});

export const FaqCreateSchema = z
  .strictObject({
    questions: FaqQuestionsSchema,
    answer: FaqAnswerSchema,
    language: FaqLanguageSchema,
    published: z.boolean().default(false),
  })
  .meta({
    id: 'FaqEntryInput',
    example: { questions: ['apakah ada asrama?'], answer: 'Ada, asrama putra dan putri.', language: 'id' },
  });
export type FaqCreate = z.output<typeof FaqCreateSchema>;

export const FaqUpdateSchema = z
  .strictObject({
    questions: FaqQuestionsSchema.optional(),
    answer: FaqAnswerSchema.optional(),
    language: FaqLanguageSchema.optional(),
    published: z.boolean().optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    error: 'give at least one of questions, answer, language and published',
  })
  .meta({ id: 'FaqEntryPatch', example: { answer: 'Ada, dengan biaya Rp 1.000.000 per bulan.' } });
export type FaqUpdate = z.output<typeof FaqUpdateSchema>;

const CursorSchema = z.string().min(1).max(1024).optional();

export const FaqListQuerySchema = z.strictObject({
  limit: pageLimit,
  cursor: CursorSchema,
  language: FaqLanguageSchema.optional(),
  published: z.enum(['true', 'false']).optional(),
  archived: z
    .enum(['true', 'false'])
    .default('false')
    .meta({ description: '`true`: only archived entries; `false` (default): only live ones.' }),
});
export type FaqListQuery = z.output<typeof FaqListQuerySchema>;

export const FaqConflictListQuerySchema = z.strictObject({
  limit: pageLimit,
  cursor: CursorSchema,
  state: z.enum(['open', 'resolved']).default('open'),
});
export type FaqConflictListQuery = z.output<typeof FaqConflictListQuerySchema>;

export const FaqRunListQuerySchema = z.strictObject({ limit: pageLimit, cursor: CursorSchema });
export type FaqRunListQuery = z.output<typeof FaqRunListQuerySchema>;

export const FaqResolveSchema = z
  .strictObject({ keep: z.enum(['local', 'upstream']) })
  .meta({ id: 'FaqConflictResolution' });

export const FaqEntrySchema = z
  .object({
    id: z.uuid(),
    questions: z.array(z.string()),
    answer: z.string(),
    language: FaqLanguageSchema,
    published: z.boolean(),
    archived: z.boolean(),
    externalId: z.string().nullable(),
    origin: z.enum(['local', 'synced']),
    locallyEdited: z.boolean(),
    upstreamHash: z.string().nullable(),
    upstreamUpdatedAt: z.iso.datetime().nullable(),
    archivedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'FaqEntry' });
export type FaqEntry = z.output<typeof FaqEntrySchema>;

/** One item of the upstream list (README, "FAQ", "The upstream format"). */
export const UpstreamItemSchema = z
  .strictObject({
    id: z.string().min(1).max(200),
    questions: FaqQuestionsSchema,
    answer: FaqAnswerSchema,
    language: FaqLanguageSchema,
    updatedAt: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'FaqUpstreamItem' });
export type UpstreamItem = z.output<typeof UpstreamItemSchema>;

export const UpstreamListSchema = z
  .array(UpstreamItemSchema)
  .max(10_000)
  .refine((items) => new Set(items.map((item) => item.id)).size === items.length, {
    error: 'ids must be unique',
  });

export const FaqConflictSchema = z
  .object({
    id: z.uuid(),
    entryId: z.uuid(),
    local: FaqEntrySchema,
    upstream: UpstreamItemSchema.omit({ id: true }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().nullable(),
    resolvedBy: z.string().nullable(),
    resolution: z.enum(['local', 'upstream']).nullable(),
  })
  .meta({ id: 'FaqConflict' });
export type FaqConflict = z.output<typeof FaqConflictSchema>;

export const FaqSyncRunSchema = z
  .object({
    id: z.uuid(),
    trigger: z.enum(['manual', 'schedule']),
    status: z.enum(['running', 'succeeded', 'not_modified', 'failed']),
    etag: z.string().nullable(),
    created: z.int(),
    updated: z.int(),
    archived: z.int(),
    conflicts: z.int(),
    unchanged: z.int(),
    error: z.string().nullable(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'FaqSyncRun' });
export type FaqSyncRun = z.output<typeof FaqSyncRunSchema>;

export function pageOf<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() }).meta({ id });
}
