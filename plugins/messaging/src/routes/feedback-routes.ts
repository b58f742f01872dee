import type { Response } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import { loadIntentData } from '../classifier/index.ts';
import type { MessagingEnv } from '../config.ts';
import {
  feedbackInputSchema,
  FeedbackListQuerySchema,
  GOLD_SET_MEDIA_TYPE,
  MessageIdParamsSchema,
  NoQuerySchema,
} from '../domain/feedback-schemas.ts';
import { deleteFeedback, listFeedback, putFeedback, readFeedback } from '../service/feedback-service.ts';
import { goldSetChunks } from '../service/gold-set-export.ts';
import type { StaffAuthentication } from './staff-authentication.ts';
import { drainedOrClosed } from './drained.ts';

/**
 * Staff feedback on the bot's replies (README, "Staff API", "Feedback"): give, read and withdraw your
 * feedback on one reply, the review list, and the corrections as gold-set lines. All gated; what a caller
 * reaches is their scope.
 */
export function registerFeedbackRoutes(
  ctx: PluginContext<MessagingEnv>,
  deps: { staff: StaffAuthentication },
): void {
  const { staff } = deps;
  const service = { db: ctx.db, clock: ctx.clock };
  // The intents of the classifier's data file: a correction names one of them, or it could not be a gold label.
  const intents = Object.keys(loadIntentData().intents);

  ctx.routes.add({
    method: 'PUT',
    path: '/api/v1/messages/:id/feedback',
    authenticate: staff.authenticate,
    schema: { params: MessageIdParamsSchema, query: NoQuerySchema, body: feedbackInputSchema(intents) },
    handler: async (req, res, { params, body }) => {
      const { feedback, created } = await putFeedback(service, staff.scope(req), params.id, body);
      res.status(created ? 201 : 200).json(feedback);
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/messages/:id/feedback',
    authenticate: staff.authenticate,
    schema: { params: MessageIdParamsSchema, query: NoQuerySchema },
    handler: async (req, res, { params }) => {
      res.json(await readFeedback(service, staff.scope(req), params.id));
    },
  });

  ctx.routes.add({
    method: 'DELETE',
    path: '/api/v1/messages/:id/feedback',
    authenticate: staff.authenticate,
    schema: { params: MessageIdParamsSchema, query: NoQuerySchema },
    handler: async (req, res, { params }) => {
      await deleteFeedback(service, staff.scope(req), params.id);
      res.status(204).end();
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/messages/feedback',
    authenticate: staff.authenticate,
    schema: { query: FeedbackListQuerySchema },
    handler: async (req, res, { query }) => {
      res.json(await listFeedback(service, staff.scope(req), query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: '/api/v1/messages/feedback/gold-set',
    authenticate: staff.authenticate,
    // Customers' own words in bulk: every export is audited, like other bulk reads of personal data.
    sensitive: true,
    schema: { query: NoQuerySchema },
    handler: async (req, res) => {
      await streamLines(res, goldSetChunks(service, staff.scope(req), intents));
    },
  });
}

/**
 * Streams chunks of lines with backpressure. Headers go out only after the first batch was read, so a
 * failure of the first query is still a problem+json answer; a later one cuts the connection (the error
 * handler's only honest signal once the status is sent). A client that leaves stops the queries.
 */
async function streamLines(res: Response, chunks: AsyncGenerator<string>): Promise<void> {
  let next = await chunks.next();
  res.status(200);
  res.setHeader('Content-Type', `${GOLD_SET_MEDIA_TYPE}; charset=utf-8`);
  res.setHeader('Content-Disposition', 'attachment; filename="gold-set-feedback.jsonl"');
  res.setHeader('Cache-Control', 'no-store');
  while (next.done !== true) {
    if (res.destroyed) {
      await chunks.return(undefined);
      return;
    }
    if (!res.write(next.value)) await drainedOrClosed(res);
    next = await chunks.next();
  }
  res.end();
}
