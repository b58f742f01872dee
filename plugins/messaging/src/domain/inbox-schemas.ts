import { z } from 'zod';
import { pageLimit } from './page-limit.ts';

/**
 * The agent inbox's shapes (README, "Staff API", "Agent inbox"). The same schemas validate requests (the
 * route table parses with them) and describe the routes in the staff API document (openapi/inbox-paths.ts).
 * Query values arrive as strings, so they are parsed from strings, never coerced loosely.
 */

/** Page sizes of every inbox list: 1 to 100, 25 when absent. */
export { DEFAULT_PAGE_SIZE } from './page-limit.ts';

const cursor = z.string().min(1).max(1024);

/** A route that takes no query parameters refuses unknown ones, as every staff route does. */
export const NoQuery = z.strictObject({});

/** The state changes take no body; an empty JSON object is accepted too. */
export const NoBody = z.strictObject({}).optional();

export const CONVERSATION_STATUSES = ['open', 'pending', 'resolved'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export const ConversationStatusSchema = z.enum(CONVERSATION_STATUSES).meta({
  id: 'ConversationStatus',
  description:
    '`open`: in the inbox; `pending`: the contact asked for a person (an escalation rule) and no agent ' +
    'holds it yet; `resolved`: done (a new message from the contact opens it again).',
});

export const ConversationIdParams = z.strictObject({
  id: z.uuid().meta({ description: 'The conversation id.', example: '0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77' }),
});

export const ConversationListQuery = z
  .strictObject({
    status: ConversationStatusSchema.optional(),
    assigned: z
      .enum(['me', 'unassigned', 'any'])
      .optional()
      .transform((value) => value ?? 'any')
      .meta({ description: '`me`: assigned to you; `unassigned`: to nobody; `any` (default): either.' }),
    cluster: z.uuid().optional().meta({
      description: 'Only this cluster. A cluster that does not exist or is outside your scope is a 404.',
    }),
    unread: z
      .enum(['true', 'false'])
      .optional()
      .transform((value) => (value === undefined ? undefined : value === 'true'))
      .meta({ description: '`true`: with unread messages; `false`: without.' }),
    q: z.string().trim().min(1).max(200).optional().meta({
      description:
        'Text search, case-insensitive, over the contact name, the phone and the last message (a substring).',
      example: 'budi',
    }),
    limit: pageLimit,
    cursor: cursor.optional().meta({ description: 'The `nextCursor` of the previous page.' }),
  })
  .meta({ id: 'ConversationListQuery' });
export type ConversationListFilter = z.output<typeof ConversationListQuery>;

export const MessagesQuery = z
  .strictObject({
    before: cursor.optional().meta({ description: 'An `olderCursor`: the messages before it.' }),
    after: cursor.optional().meta({ description: 'A `newerCursor`: the messages after it.' }),
    limit: pageLimit,
  })
  .refine((query) => query.before === undefined || query.after === undefined, {
    error: 'give `before` or `after`, not both',
    path: ['before'],
  });
export type MessagesPageQuery = z.output<typeof MessagesQuery>;

export const AssignBody = z
  .strictObject({
    userId: z.string().min(1).max(200).meta({
      description: "The staff member's id (`sub`); a member of the conversation's cluster.",
      example: 'agent-7',
    }),
  })
  .meta({ id: 'AssignRequest' });

export const ReplyBody = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .max(4096)
      .refine((text) => text.trim().length > 0, { error: 'must not be blank' })
      .meta({
        description: 'The reply, 1 to 4,096 characters.',
        example: 'Halo Budi, saya Rina dari admisi.',
      }),
  })
  .meta({ id: 'AgentReplyRequest' });

/** `Idempotency-Key`: 1 to 255 printable ASCII characters without spaces (the KYC API's rule too). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

const isoTime = z.iso.datetime();

export const ConversationSchema = z
  .object({
    id: z.uuid(),
    clusterId: z.uuid().nullable().meta({ description: 'null: routed to no cluster (admins only).' }),
    contact: z.object({
      name: z.string().nullable(),
      phone: z.string().nullable().meta({ description: 'The WhatsApp number, digits only.' }),
      userId: z
        .string()
        .nullable()
        .meta({ description: 'The WhatsApp user id of a contact without a number.' }),
    }),
    status: ConversationStatusSchema,
    assignedTo: z.string().nullable().meta({ description: 'The staff member it is assigned to.' }),
    assignedAt: isoTime.nullable(),
    handler: z.enum(['bot', 'agent']).meta({
      description: "Who answers the contact's next message: `agent` while an agent holds the conversation.",
    }),
    agentActiveAt: isoTime
      .nullable()
      .meta({ description: 'When an agent last replied or took it (null: never, or handed back).' }),
    botResumesAt: isoTime.nullable().meta({
      description: 'While `handler` is `agent`: when the bot answers again if no agent acts before.',
    }),
    unreadCount: z.int().min(0),
    lastActivityAt: isoTime,
    lastMessage: z.string().nullable().meta({ description: 'The text of the last message, either way.' }),
    resolvedAt: isoTime.nullable(),
    createdAt: isoTime,
  })
  .meta({ id: 'Conversation' });

export const ConversationListSchema = z
  .object({
    items: z.array(ConversationSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `cursor` for the next page; null at the end.' }),
  })
  .meta({ id: 'ConversationList' });

export const MessageSchema = z
  .object({
    id: z.uuid(),
    direction: z.enum(['inbound', 'outbound']),
    type: z.string().meta({ description: 'The WhatsApp message type (`text`, `image`, ...).' }),
    text: z.string().nullable(),
    author: z
      .object({
        kind: z.enum(['contact', 'bot', 'agent']),
        userId: z.string().optional().meta({ description: 'The agent, when `kind` is `agent`.' }),
      })
      .meta({ id: 'MessageAuthor' }),
    intent: z.string().nullable().meta({ description: 'Inbound, once classified.' }),
    tier: z
      .int()
      .min(1)
      .max(4)
      .nullable()
      .meta({ description: 'The classifier tier that decided `intent`.' }),
    deliveryStatus: z.enum(['pending', 'sent', 'delivered', 'read', 'failed']).nullable(),
    processingStatus: z.enum(['queued', 'processed', 'dead']).nullable(),
    createdAt: isoTime,
  })
  .meta({ id: 'Message' });

export const MessagePageSchema = z
  .object({
    items: z.array(MessageSchema).meta({ description: 'Oldest first.' }),
    olderCursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `before` for the older messages; null when there are none.' }),
    newerCursor: z
      .string()
      .nullable()
      .meta({
        description:
          "Pass as `after` for newer messages: the page's newest message (or the `after` given, when the page " +
          'is empty); an empty page means nothing newer yet. Null only when the conversation has no message.',
      }),
  })
  .meta({ id: 'MessagePage' });

export const ConversationDetailSchema = ConversationSchema.extend({
  messages: MessagePageSchema.meta({ description: 'The last page of messages (25).' }),
}).meta({ id: 'ConversationDetail' });

export const MeSchema = z
  .object({
    userId: z.string(),
    admin: z.boolean().meta({ description: 'Holds `*` or `messaging:admin`: sees every cluster.' }),
    clusters: z
      .array(z.object({ id: z.uuid(), name: z.string(), member: z.boolean() }))
      .meta({ description: 'The clusters you see: your memberships, or every cluster for an admin.' }),
  })
  .meta({ id: 'StaffMe' });
