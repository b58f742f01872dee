import type { ZodType } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { coreErrors } from '../../../../gateway/src/plugin-api.ts';
import {
  FollowUpListSchema,
  FollowUpSchema,
  IdParamsSchema,
  QueueQuerySchema,
  RuleInputSchema,
  RuleListSchema,
  RuleSchema,
  TriggerInputSchema,
} from '../domain/follow-up-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { badRequest, problem, staffResponses } from './common.ts';

const TAG = 'Follow-ups';

const json = (description: string, schema: ZodType): ZodOpenApiResponseObject => ({
  description,
  content: { 'application/json': { schema } },
});
const adminOnly = { '403': problem([messagingErrors.create('messaging.staff.admin_required')]) };
const ruleNotFound = { '404': problem([messagingErrors.create('messaging.follow_up_rule.not_found')]) };
const badBody = badRequest('body.delayHours', 'Too small: expected number to be >=1', [
  coreErrors.create('request.malformed_json'),
]);

function operation(
  operationId: string,
  summary: string,
  description: string,
  rest: Omit<ZodOpenApiOperationObject, 'operationId' | 'summary' | 'description' | 'tags'>,
): ZodOpenApiOperationObject {
  return {
    operationId,
    tags: [TAG],
    summary,
    description,
    ...rest,
    responses: { ...rest.responses, ...staffResponses },
  };
}

/** The follow-up routes' operations in the staff API document (openapi/document.ts; README, "Follow-ups"). */
export function followUpPaths(): ZodOpenApiPathsObject {
  const ruleBody = { required: true, content: { 'application/json': { schema: RuleInputSchema } } };
  return {
    '/api/v1/follow-up/rules': {
      get: operation('listFollowUpRules', 'List follow-up rules', 'Every rule. Admins only.', {
        responses: { '200': json('The rules.', RuleListSchema), ...adminOnly },
      }),
      post: operation('createFollowUpRule', 'Create a follow-up rule', 'Admins only.', {
        requestBody: ruleBody,
        responses: { '201': json('The rule.', RuleSchema), '400': badBody, ...adminOnly },
      }),
    },
    '/api/v1/follow-up/rules/{id}': {
      get: operation('getFollowUpRule', 'Read a follow-up rule', 'Admins only.', {
        requestParams: { path: IdParamsSchema },
        responses: { '200': json('The rule.', RuleSchema), ...adminOnly, ...ruleNotFound },
      }),
      put: operation(
        'replaceFollowUpRule',
        'Replace a follow-up rule',
        'Its pending follow-ups take the new delay and message; disabling it or changing its kind cancels them. Admins only.',
        {
          requestParams: { path: IdParamsSchema },
          requestBody: ruleBody,
          responses: { '200': json('The rule.', RuleSchema), '400': badBody, ...adminOnly, ...ruleNotFound },
        },
      ),
      delete: operation(
        'deleteFollowUpRule',
        'Delete a follow-up rule',
        'Its pending follow-ups are cancelled; the others stay in the queue. Admins only.',
        {
          requestParams: { path: IdParamsSchema },
          responses: { '204': { description: 'Deleted.' }, ...adminOnly, ...ruleNotFound },
        },
      ),
    },
    '/api/v1/follow-up/queue': {
      get: operation(
        'listFollowUps',
        'The follow-up queue',
        'Follow-ups of the conversations you see, latest due first.',
        {
          requestParams: { query: QueueQuerySchema },
          responses: {
            '200': json('The follow-ups.', FollowUpListSchema),
            '400': badRequest('query.status', 'Invalid option'),
          },
        },
      ),
    },
    '/api/v1/follow-up/queue/{id}/cancel': {
      post: operation('cancelFollowUp', 'Cancel a pending follow-up', 'Only a pending one, in your scope.', {
        requestParams: { path: IdParamsSchema },
        responses: {
          '200': json('The cancelled follow-up.', FollowUpSchema),
          '404': problem([messagingErrors.create('messaging.follow_up.not_found')]),
          '409': problem([messagingErrors.create('messaging.follow_up.not_pending')]),
        },
      }),
    },
    '/api/v1/follow-up/trigger': {
      post: operation(
        'triggerFollowUp',
        'Follow up a conversation now',
        'A manual follow-up, due now, on a conversation you see; the next pass sends the text inside the ' +
          '24-hour window, else the template, else it is skipped_outside_window.',
        {
          requestBody: { required: true, content: { 'application/json': { schema: TriggerInputSchema } } },
          responses: {
            '202': json('The follow-up, pending.', FollowUpSchema),
            '400': badRequest('body', 'give text, template or both', [
              coreErrors.create('request.malformed_json'),
            ]),
            '404': problem([messagingErrors.create('messaging.conversation.not_found')]),
            '409': problem([messagingErrors.create('messaging.follow_up.already_pending')]),
          },
        },
      ),
    },
  };
}
