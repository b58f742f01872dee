import { z } from 'zod';
import { INTENTS } from '../classifier/types.ts';
import { LanguageSchema, nonBlank } from './kb-schemas.ts';
import { pageLimit } from './page-limit.ts';

/**
 * The KB evaluation routes' shapes (README, "Knowledge base", "Evaluation"). The same schemas validate requests
 * and describe the routes in the staff API document (openapi/kb-evaluation-paths.ts).
 */

export const KB_EVAL_QUESTION_MAX = 1000;
export const KB_EVAL_EXPECTED_MAX = 10;
export const KB_EVAL_ORIGINS = ['gold', 'correction', 'manual'] as const;

const OriginSchema = z.enum(KB_EVAL_ORIGINS).meta({
  id: 'KbEvaluationOrigin',
  description:
    '`gold`: seeded from the gold set; `correction`: from a staff correction; `manual`: written here.',
});
const CursorSchema = z
  .string()
  .min(1)
  .max(1024)
  .optional()
  .meta({ description: "The previous page's `nextCursor`, unchanged." });
const IdSchema = (what: string) => z.uuid({ error: `must be ${what}` });

export const KbEvalItemIdParamsSchema = z.strictObject({
  id: IdSchema('an evaluation item id').meta({ description: 'The evaluation item id.' }),
});

export const KbEvalRunIdParamsSchema = z.strictObject({
  id: IdSchema('an evaluation run id').meta({ description: 'The evaluation run id.' }),
});

export const KbEvalItemInputSchema = z
  .strictObject({
    question: nonBlank(KB_EVAL_QUESTION_MAX).meta({ description: 'The question, 1 to 1,000 characters.' }),
    language: LanguageSchema,
    expectedDocumentIds: z
      .array(z.uuid({ error: 'must be a document id' }))
      .max(KB_EVAL_EXPECTED_MAX)
      .default([])
      .transform((ids) => [...new Set(ids)])
      .meta({ description: 'Up to 10 documents that answer the question (any of them is a hit).' }),
    expectedIntent: z
      .enum(INTENTS)
      .nullable()
      .default(null)
      .meta({ description: "The classifier's intent the question should get." }),
    heldOut: z.boolean().default(false).meta({ description: 'Counted in the held-out figures too.' }),
  })
  .refine((item) => item.expectedDocumentIds.length > 0 || item.expectedIntent !== null, {
    error: 'give expectedDocumentIds or expectedIntent (or both)',
    path: ['expectedDocumentIds'],
  })
  .meta({ id: 'KbEvaluationItemInput', description: 'An evaluation item; PUT replaces every field.' });
export type KbEvalItemInput = z.output<typeof KbEvalItemInputSchema>;

export const KbEvalItemListQuerySchema = z.strictObject({
  limit: pageLimit,
  cursor: CursorSchema,
  origin: OriginSchema.optional(),
  language: LanguageSchema.optional(),
  heldOut: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: only held-out items; `false`: only the others.' }),
});
export type KbEvalItemListQuery = z.output<typeof KbEvalItemListQuerySchema>;

export const KbEvalRunListQuerySchema = z.strictObject({ limit: pageLimit, cursor: CursorSchema });
export type KbEvalRunListQuery = z.output<typeof KbEvalRunListQuerySchema>;

/** A list cursor's position: created_at in microseconds since the epoch, then the id. */
export const KbEvalPositionSchema = z.tuple([z.number().int().nonnegative(), z.uuid()]);

export const KbEvalItemSchema = z
  .object({
    id: z.uuid(),
    question: z.string(),
    language: LanguageSchema,
    expectedDocumentIds: z.array(z.uuid()),
    expectedIntent: z.string().nullable(),
    origin: OriginSchema,
    heldOut: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'KbEvaluationItem' });
export type KbEvalItemView = z.output<typeof KbEvalItemSchema>;

export const KbEvalItemPageSchema = z
  .object({ items: z.array(KbEvalItemSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'KbEvaluationItemPage' });

const share = (description: string) => z.number().nullable().meta({ description });

const MetricsSchema = z
  .object({
    items: z.int().meta({ description: 'Items in this slice.' }),
    scored: z.int().meta({ description: 'Items with expected documents: hit@k and MRR are over these.' }),
    hitAt1: share('Share of scored items whose first document is an expected one; null when none is scored.'),
    hitAt3: share('Share of scored items with an expected document among the first three.'),
    mrr: share('Mean of 1 / rank of the first expected document (0 when not in the first ten).'),
    answeredRate: share(
      'Share of all items whose best chunk reaches the answer threshold (the bot would answer from the KB).',
    ),
  })
  .meta({ id: 'KbEvaluationMetrics' });

const RunMetricsSchema = z.object({
  overall: MetricsSchema,
  byLanguage: z.object({ id: MetricsSchema, en: MetricsSchema }),
});

const DeltaSchema = z
  .object({
    hitAt1: z.number().nullable(),
    hitAt3: z.number().nullable(),
    mrr: z.number().nullable(),
    answeredRate: z.number().nullable(),
  })
  .nullable()
  .meta({
    id: 'KbEvaluationDelta',
    description: 'This run minus the previous one (positive: better); null for the first run.',
  });

export const KbEvalRunSchema = z
  .object({
    id: z.uuid(),
    kbVersion: z.int().meta({ description: 'The KB version the run searched.' }),
    threshold: z.number().meta({ description: 'The answer threshold the run used.' }),
    itemCount: z.int(),
    metrics: RunMetricsSchema.extend({ heldOut: RunMetricsSchema }),
    delta: z.object({
      overall: DeltaSchema,
      heldOut: DeltaSchema,
      previousKbVersion: z.int().nullable(),
    }),
    createdBy: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'KbEvaluationRun' });

export const KbEvalRunPageSchema = z
  .object({ items: z.array(KbEvalRunSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'KbEvaluationRunPage' });

export const KbEvalSeedResultSchema = z
  .object({
    gold: z.int().meta({ description: 'Items added from the gold set.' }),
    corrections: z.int().meta({ description: 'Items added from staff intent corrections.' }),
  })
  .meta({ id: 'KbEvaluationSeedResult' });
