import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AssignBody,
  ConversationDetailSchema,
  ConversationIdParams,
  ConversationListQuery,
  ConversationListSchema,
  ConversationSchema,
  IDEMPOTENCY_KEY_PATTERN,
  MeSchema,
  MessagePageSchema,
  MessageSchema,
  MessagesQuery,
  ReplyBody,
} from '../domain/inbox-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Agent inbox';
const JSON_TYPE = 'application/json';
const ID = '0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77';

const exampleConversation = {
  id: ID,
  clusterId: '5d0c7a3e-2b1f-4e6a-8c9d-0e1f2a3b4c5d',
  contact: { name: 'Budi Santoso', phone: '6281234567890', userId: null },
  status: 'open',
  assignedTo: 'agent-7',
  assignedAt: '2026-11-24T09:14:03.120Z',
  handler: 'agent',
  agentActiveAt: '2026-11-24T09:14:03.120Z',
  botResumesAt: '2026-11-24T09:44:03.120Z',
  unreadCount: 0,
  lastActivityAt: '2026-11-24T09:14:03.120Z',
  lastMessage: 'Halo Budi, saya Rina dari admisi.',
  resolvedAt: null,
  createdAt: '2026-11-24T08:58:41.002Z',
};

const exampleMessage = {
  id: '7c2e9f10-5a4b-4c3d-8e1f-2a3b4c5d6e7f',
  direction: 'outbound',
  type: 'text',
  text: 'Halo Budi, saya Rina dari admisi.',
  author: { kind: 'agent', userId: 'agent-7' },
  intent: null,
  tier: null,
  deliveryStatus: 'pending',
  processingStatus: null,
  createdAt: '2026-11-24T09:14:03.120Z',
};

const exampleCursor = 'eyJrIjoiaW5ib3giLCJwIjp7InVzIjoxNzY0MDAwMDAwMDAwMDAwLCJpZCI6IjBiNWY5YTRlIn19';

const notFound = problem([messagingErrors.create('messaging.conversation.not_found')]);
const cursorInvalid = messagingErrors.create('messaging.cursor.invalid');

function json(schema: z.ZodType, description: string, example: unknown) {
  return { description, content: { [JSON_TYPE]: { schema, example } } };
}

/** A state change of one conversation: `POST .../{id}/<action>`, answering the conversation. */
function action(operationId: string, summary: string, description: string): ZodOpenApiOperationObject {
  return {
    operationId,
    tags: [TAG],
    summary,
    description,
    requestParams: { path: ConversationIdParams },
    responses: {
      '200': json(ConversationSchema, 'The conversation after the change.', exampleConversation),
      '400': badRequest('params.id', 'Invalid UUID'),
      ...staffResponses,
      '404': notFound,
    },
  };
}

const IdempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN)
  .meta({
    description:
      'Makes a retried or doubled reply safe: for 24 hours the same key (per staff member) with the same ' +
      'conversation and text answers the reply it created (200, `Idempotent-Replayed: true`) and sends ' +
      'nothing; with another conversation or text it is refused (422). 1 to 255 printable ASCII characters, ' +
      'no spaces.',
    example: 'reply-3f1c-1',
  });

function replyOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'replyToConversation',
    tags: [TAG],
    summary: 'Send an agent reply',
    description:
      "Queues the reply in the outbox; the sender sends it in the conversation's order, after any bot reply " +
      'still pending. The conversation becomes the agent’s: the bot stops answering it (until a hand-back ' +
      'or MESSAGING_HANDOFF_IDLE_MS without an agent acting), it is assigned to the agent unless someone ' +
      'holds it already, and it is open.',
    requestParams: {
      path: ConversationIdParams,
      header: z.object({ 'Idempotency-Key': IdempotencyKeyHeader.optional() }),
    },
    requestBody: { required: true, content: { [JSON_TYPE]: { schema: ReplyBody } } },
    responses: {
      '201': json(MessageSchema, 'The reply, queued.', exampleMessage),
      '200': {
        ...json(
          MessageSchema,
          'The reply an earlier request with this Idempotency-Key created, as it is now.',
          {
            ...exampleMessage,
            deliveryStatus: 'sent',
          },
        ),
        headers: z.object({
          'Idempotent-Replayed': z.enum(['true']).meta({ description: 'This answers an earlier request.' }),
        }),
      },
      '400': badRequest('body.text', 'Too small: expected string to have >=1 characters', [
        messagingErrors.create('messaging.idempotency_key.invalid'),
      ]),
      ...staffResponses,
      '404': notFound,
      '422': problem([messagingErrors.create('messaging.idempotency_key.reused')]),
    },
  };
}

/** The inbox routes' operations in the staff API document (openapi/document.ts). */
export function inboxPaths(): ZodOpenApiPathsObject {
  const conversation = '/api/v1/agent/conversations/{id}';
  return {
    '/api/v1/agent/me': {
      get: {
        operationId: 'getStaffMe',
        tags: [TAG],
        summary: 'Who you are and what you see',
        description: 'Your id, whether you are an admin, and the clusters whose conversations you see.',
        responses: {
          '200': json(MeSchema, 'You.', {
            userId: 'agent-7',
            admin: false,
            clusters: [{ id: exampleConversation.clusterId, name: 'Admissions', member: true }],
          }),
          '400': badRequest('query', 'Unrecognized key: "x"'),
          ...staffResponses,
        },
      },
    },
    '/api/v1/agent/conversations': {
      get: {
        operationId: 'listConversations',
        tags: [TAG],
        summary: 'The inbox',
        description:
          'Conversations in your scope, most recent activity first (ties by id), one keyset page at a time. ' +
          'A conversation whose activity changes during a walk moves to the top, ahead of the cursor, so the ' +
          'walk does not show it again; conversations created during a walk never make it repeat or skip ' +
          'one that existed when it started.',
        requestParams: { query: ConversationListQuery },
        responses: {
          '200': json(ConversationListSchema, 'One page.', {
            items: [exampleConversation],
            nextCursor: exampleCursor,
          }),
          '400': badRequest('query.status', 'Invalid option: expected one of "open"|"pending"|"resolved"', [
            cursorInvalid,
          ]),
          ...staffResponses,
          '404': problem([messagingErrors.create('messaging.cluster.not_found')]),
        },
      },
    },
    [conversation]: {
      get: {
        operationId: 'getConversation',
        tags: [TAG],
        summary: 'One conversation',
        description: 'The conversation, who holds it, and its last 25 messages.',
        requestParams: { path: ConversationIdParams },
        responses: {
          '200': json(ConversationDetailSchema, 'The conversation.', {
            ...exampleConversation,
            messages: { items: [exampleMessage], olderCursor: null, newerCursor: exampleCursor },
          }),
          '400': badRequest('params.id', 'Invalid UUID'),
          ...staffResponses,
          '404': notFound,
        },
      },
    },
    [`${conversation}/messages`]: {
      get: {
        operationId: 'listConversationMessages',
        tags: [TAG],
        summary: "A page of a conversation's messages",
        description:
          'Oldest first within a page. Without a cursor: the newest messages; `before`: older ones; ' +
          '`after`: newer ones (poll with the last `newerCursor`).',
        requestParams: { path: ConversationIdParams, query: MessagesQuery },
        responses: {
          '200': json(MessagePageSchema, 'One page.', {
            items: [exampleMessage],
            olderCursor: exampleCursor,
            newerCursor: exampleCursor,
          }),
          '400': badRequest('query.before', 'give `before` or `after`, not both', [cursorInvalid]),
          ...staffResponses,
          '404': notFound,
        },
      },
    },
    [`${conversation}/read`]: {
      post: action('markConversationRead', 'Mark read', 'No unread messages any more.'),
    },
    [`${conversation}/assign`]: {
      post: {
        ...action(
          'assignConversation',
          'Assign',
          'Assigns the conversation to a member of its cluster. Assigning yourself takes it: the bot stops ' +
            'answering and a `pending` conversation is `open`. An admin may take any conversation.',
        ),
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: AssignBody } } },
        responses: {
          '200': json(ConversationSchema, 'The conversation after the change.', exampleConversation),
          '400': badRequest('body.userId', 'Invalid input: expected string, received undefined'),
          ...staffResponses,
          '404': notFound,
          '422': problem([messagingErrors.create('messaging.assignee.not_member')]),
        },
      },
    },
    [`${conversation}/unassign`]: {
      post: action('unassignConversation', 'Unassign', 'Nobody is assigned; who answers does not change.'),
    },
    [`${conversation}/resolve`]: {
      post: action(
        'resolveConversation',
        'Resolve',
        'The conversation is `resolved`; a new message from the contact opens it again.',
      ),
    },
    [`${conversation}/reopen`]: {
      post: action('reopenConversation', 'Reopen', 'A resolved conversation is `open` again.'),
    },
    [`${conversation}/handback`]: {
      post: action(
        'handBackConversation',
        'Hand back to the bot',
        "The bot answers the contact's next message.",
      ),
    },
    [`${conversation}/replies`]: { post: replyOperation() },
  };
}
