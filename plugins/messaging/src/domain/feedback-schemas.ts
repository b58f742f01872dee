import { z } from 'zod';
import { pageLimit } from './page-limit.ts';

/**
 * The feedback routes' shapes (README, "Staff API", "Feedback"). The same schemas validate requests (the route
 * table parses with them) and describe the routes in the staff API document (openapi/feedback-paths.ts).
 * `.meta({ id })` names a component of the document.
 */

export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];

/** The longest correction of an answer, in UTF-16 code units (never more characters than the column takes). */
export const MAX_CORRECT_ANSWER = 4096;
/** The gold-set export's media type: one JSON object per line, as the gold-set file holds them. */
export const GOLD_SET_MEDIA_TYPE = 'application/x-ndjson';

const RatingSchema = z.enum(FEEDBACK_RATINGS).meta({
  id: 'FeedbackRating',
  description: '`up`: the reply was right; `down`: it was wrong.',
});

export const MessageIdParamsSchema = z.strictObject({
  id: z.uuid({ error: 'must be a message id' }).meta({ description: "The bot reply's message id." }),
});

/** No query parameters: an unknown one is refused rather than ignored. */
export const NoQuerySchema = z.strictObject({});

/**
 * PUT body: the caller's whole feedback on one bot reply, replacing what they gave before (a field left out
 * is null). `intents` are the intent ids the classifier knows (its data file), so a correction can only
 * name an intent the gold set can hold.
 */
export function feedbackInputSchema(intents: readonly string[]) {
  return z
    .strictObject({
      rating: RatingSchema.nullable().default(null),
      correctIntent: z
        .enum(intents)
        .nullable()
        .default(null)
        .meta({ description: 'The intent the customer message this reply answered should have had.' }),
      correctAnswer: z
        .string()
        .min(1)
        .max(MAX_CORRECT_ANSWER)
        .regex(/\S/, { error: 'must not be blank' })
        .nullable()
        .default(null)
        .meta({ description: 'The answer the bot should have given.' }),
    })
    .refine((body) => body.rating !== null || body.correctIntent !== null || body.correctAnswer !== null, {
      error: 'give at least one of rating, correctIntent and correctAnswer',
    })
    .meta({
      id: 'FeedbackInput',
      description:
        'Your feedback on one bot reply. A PUT replaces all of it: a field you leave out or send as null is ' +
        'cleared. At least one field must be set.',
      example: { rating: 'down', correctIntent: 'askFees', correctAnswer: null },
    });
}
export type FeedbackInput = z.output<ReturnType<typeof feedbackInputSchema>>;

const CursorSchema = z
  .string()
  .min(1)
  .max(1024)
  .optional()
  .meta({ description: "The previous page's `nextCursor`, unchanged." });

export const FeedbackListQuerySchema = z.strictObject({
  limit: pageLimit,
  cursor: CursorSchema,
  rating: z.enum(FEEDBACK_RATINGS).optional().meta({ description: 'Only feedback with this rating.' }),
  hasCorrection: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: '`true`: only feedback with a corrected intent or answer; `false`: only without.' }),
});
export type FeedbackListQuery = z.output<typeof FeedbackListQuerySchema>;

const timestamp = z.iso.datetime();

export const FeedbackSchema = z
  .object({
    messageId: z.uuid(),
    userId: z.string().meta({ description: 'The staff member who gave it (their `sub`).' }),
    rating: RatingSchema.nullable(),
    correctIntent: z.string().nullable(),
    correctAnswer: z.string().nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({
    id: 'Feedback',
    example: {
      messageId: '5d1f4a0e-2b7c-4e9a-8f3d-6c2b1a0e9d7f',
      userId: 'agent-7',
      rating: 'down',
      correctIntent: 'askFees',
      correctAnswer: null,
      createdAt: '2026-11-24T09:30:00.000Z',
      updatedAt: '2026-11-24T09:31:12.000Z',
    },
  });
export type FeedbackView = z.output<typeof FeedbackSchema>;

export const MessageFeedbackSchema = z
  .object({
    mine: FeedbackSchema.nullable().meta({ description: 'Your feedback on the reply, if any.' }),
    all: z
      .array(FeedbackSchema)
      .meta({ description: "Every staff member's feedback on the reply (yours too), newest first." }),
  })
  .meta({ id: 'MessageFeedback' });

export const FeedbackListItemSchema = FeedbackSchema.extend({
  conversationId: z.uuid(),
  clusterId: z.uuid().nullable(),
  language: z.enum(['id', 'en']).meta({ description: "The conversation's language." }),
  reply: z
    .object({ text: z.string().nullable(), template: z.string(), createdAt: timestamp })
    .meta({ description: 'The bot reply the feedback is on.' }),
  inbound: z
    .object({
      id: z.uuid(),
      text: z.string().nullable(),
      intent: z.string().nullable().meta({ description: 'The intent the classifier gave it.' }),
      tier: z.int().nullable().meta({ description: 'The classifier tier that decided (1 to 4).' }),
    })
    .nullable()
    .meta({ description: 'The customer message the reply answered (null when it answered none).' }),
}).meta({ id: 'FeedbackListItem' });
export type FeedbackListItem = z.output<typeof FeedbackListItemSchema>;

export const FeedbackPageSchema = z
  .object({
    items: z.array(FeedbackListItemSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null: none.' }),
  })
  .meta({ id: 'FeedbackPage' });

/** Where a page of the feedback list ends: creation time in microseconds since the epoch, message, staff member. */
export const FeedbackPositionSchema = z.tuple([
  z.int().min(-Number.MAX_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER),
  z.uuid(),
  z.string().min(1).max(200),
]);
export type FeedbackPosition = z.output<typeof FeedbackPositionSchema>;
