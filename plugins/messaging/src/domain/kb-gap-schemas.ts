import { z } from 'zod';
import { pageLimit } from './page-limit.ts';

/**
 * The gap routes' shapes (README, "Knowledge base", "Gaps"). The same schemas validate requests and describe
 * the routes in the staff API document (openapi/kb-gap-paths.ts).
 */

/** ISO weeks a group's counts cover, this week included. */
export const GAP_WEEKS = 8;
/** Example messages shown per group. */
export const GAP_EXAMPLES = 3;

const GapKindSchema = z.enum(['fallback', 'no_kb_answer', 'thumbs_down', 'correction']).meta({
  id: 'KbGapKind',
  description:
    '`fallback`: the message fell to the default tier and the knowledge base did not answer it; ' +
    '`no_kb_answer`: the knowledge base had no answer above the threshold; `thumbs_down` and `correction`: ' +
    "a staff member's feedback on the reply to the message.",
});

export const KbGapListQuerySchema = z.strictObject({
  status: z
    .enum(['open', 'closed', 'all'])
    .default('open')
    .meta({ description: '`open` (default), `closed` or `all`.' }),
  limit: pageLimit,
  cursor: z
    .string()
    .min(1)
    .max(1024)
    .optional()
    .meta({ description: "The previous page's `nextCursor`, unchanged." }),
});
export type KbGapListQuery = z.output<typeof KbGapListQuerySchema>;

/** A list cursor's position: the candidate count, then the key. */
export const KbGapPositionSchema = z.tuple([z.number().int().nonnegative(), z.string().min(1).max(500)]);

export const KbGapSchema = z
  .object({
    key: z.string().meta({ description: "The messages' normal form (the classifier's normaliser)." }),
    status: z.enum(['open', 'closed']),
    count: z.int().meta({ description: 'Candidates in the group.' }),
    firstSeenAt: z.iso.datetime(),
    lastSeenAt: z.iso.datetime(),
    weeks: z
      .array(z.object({ week: z.string().meta({ example: '2026-W07' }), count: z.int() }))
      .meta({ description: `Candidates per ISO week (UTC), the last ${GAP_WEEKS} weeks, oldest first.` }),
    examples: z
      .array(
        z.object({
          messageId: z.uuid(),
          text: z.string(),
          kind: GapKindSchema,
          at: z.iso.datetime(),
        }),
      )
      .meta({ description: `The newest ${GAP_EXAMPLES} candidates.` }),
    closedBy: z
      .object({
        documentId: z.uuid(),
        title: z.string().nullable(),
        kbVersion: z.int(),
        closedAt: z.iso.datetime(),
      })
      .nullable()
      .meta({ description: 'The document retrieval found answering the key (closed groups).' }),
  })
  .meta({ id: 'KbGap' });
export type KbGapView = z.output<typeof KbGapSchema>;

export const KbGapPageSchema = z
  .object({ items: z.array(KbGapSchema), nextCursor: z.string().nullable() })
  .meta({ id: 'KbGapPage' });

export const KbGapRefreshSchema = z
  .object({
    collected: z.int().meta({ description: 'New candidates recorded.' }),
    closed: z.int().meta({ description: 'Groups closed by retrieval.' }),
    kbVersion: z.int().meta({ description: 'The KB version the open groups were searched at.' }),
  })
  .meta({ id: 'KbGapRefresh' });
export type KbGapRefreshView = z.output<typeof KbGapRefreshSchema>;
