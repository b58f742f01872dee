import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import { loadIntentData } from '../classifier/index.ts';
import {
  feedbackInputSchema,
  FeedbackListQuerySchema,
  FeedbackPageSchema,
  FeedbackSchema,
  GOLD_SET_MEDIA_TYPE,
  MessageFeedbackSchema,
  MessageIdParamsSchema,
} from '../domain/feedback-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Feedback';

const notFound = problem([messagingErrors.create('messaging.message.not_found')]);
const badMessageId = badRequest('params.id', 'must be a message id');

/** The feedback routes' operations in the staff API document (openapi/document.ts). */
export function feedbackPaths(): ZodOpenApiPathsObject {
  const intents = Object.keys(loadIntentData().intents);
  return {
    '/api/v1/messages/{id}/feedback': {
      put: putOperation(intents),
      get: readOperation(),
      delete: deleteOperation(),
    },
    '/api/v1/messages/feedback': { get: listOperation() },
    '/api/v1/messages/feedback/gold-set': { get: goldSetOperation() },
  };
}

function putOperation(intents: readonly string[]): ZodOpenApiOperationObject {
  const written = (description: string) => ({
    description,
    content: { 'application/json': { schema: FeedbackSchema } },
  });
  return {
    operationId: 'putMessageFeedback',
    tags: [TAG],
    summary: 'Give or replace your feedback on a bot reply',
    description:
      'Thumbs up or down on one of the bot’s replies, and/or a correction: the intent the customer message ' +
      'it answered should have had (one the classifier knows) and the answer it should have given. Each ' +
      'staff member has one current feedback per reply; a PUT replaces yours whole. Only for replies the bot ' +
      'wrote, in a conversation you see.',
    requestParams: { path: MessageIdParamsSchema },
    requestBody: {
      required: true,
      content: { 'application/json': { schema: feedbackInputSchema(intents) } },
    },
    responses: {
      '200': written('Your earlier feedback on this reply was replaced.'),
      '201': written('Your first feedback on this reply.'),
      '400': badRequest('body.correctIntent', 'Invalid option: expected one of the intent ids', [
        coreErrors.create('request.malformed_json'),
      ]),
      '404': notFound,
      '413': problem([coreErrors.create('request.too_large')]),
      '422': problem([messagingErrors.create('messaging.feedback.not_bot_reply')]),
      ...staffResponses,
    },
  };
}

function readOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'getMessageFeedback',
    tags: [TAG],
    summary: 'Read the feedback on a message',
    description:
      'Your feedback and every staff member’s on a message you see (empty for a message that is not a bot reply).',
    requestParams: { path: MessageIdParamsSchema },
    responses: {
      '200': {
        description: 'The feedback.',
        content: { 'application/json': { schema: MessageFeedbackSchema } },
      },
      '400': badMessageId,
      '404': notFound,
      ...staffResponses,
    },
  };
}

function deleteOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'deleteMessageFeedback',
    tags: [TAG],
    summary: 'Withdraw your feedback on a message',
    description: 'Removes your feedback (only yours). Withdrawing feedback you never gave is not an error.',
    requestParams: { path: MessageIdParamsSchema },
    responses: {
      '204': { description: 'You have no feedback on the message now.' },
      '400': badMessageId,
      '404': notFound,
      ...staffResponses,
    },
  };
}

function listOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'listMessageFeedback',
    tags: [TAG],
    summary: 'List feedback for review',
    description:
      'The feedback on the bot’s replies in the conversations you see, newest first (by when it was first ' +
      'given), with the reply and the customer message it answered. Keyset pages.',
    requestParams: { query: FeedbackListQuerySchema },
    responses: {
      '200': {
        description: 'One page.',
        content: { 'application/json': { schema: FeedbackPageSchema } },
      },
      '400': badRequest('query.limit', 'must be a whole number from 1 to 100', [
        messagingErrors.create('messaging.cursor.invalid'),
      ]),
      ...staffResponses,
    },
  };
}

function goldSetOperation(): ZodOpenApiOperationObject {
  return {
    operationId: 'exportFeedbackGoldSet',
    tags: [TAG],
    summary: 'Export the intent corrections as gold-set lines',
    description:
      'Every corrected intent in the conversations you see, as the labelled utterances of the classifier’s ' +
      'gold set (`plugins/messaging/data/gold-set.v1.jsonl`): one line per distinct (customer text, intent), ' +
      'the text being the customer message the corrected reply answered and `lang` its conversation’s ' +
      'language. Streamed; audited as a bulk read.',
    responses: {
      '200': {
        description: 'Newline-delimited JSON, one `{"text", "intent", "lang"}` object per line.',
        content: {
          [GOLD_SET_MEDIA_TYPE]: {
            schema: z.string().meta({
              description: 'Lines of `{"text": string, "intent": string, "lang": "id" | "en"}`.',
              example: '{"text": "biaya kuliahnya berapa ya", "intent": "askFees", "lang": "id"}\n',
            }),
          },
        },
      },
      '400': badRequest('query', 'Unrecognized key: "since"'),
      ...staffResponses,
    },
  };
}
