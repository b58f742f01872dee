import type { Request } from 'express';
import type { PluginContext } from '../../../../gateway/src/plugin-api.ts';
import type { MessagingEnv } from '../config.ts';
import {
  AssignBody,
  ConversationIdParams,
  ConversationListQuery,
  DEFAULT_PAGE_SIZE,
  IDEMPOTENCY_KEY_PATTERN,
  MessagesQuery,
  NoBody,
  NoQuery,
  ReplyBody,
} from '../domain/inbox-schemas.ts';
import { messagingErrors } from '../errors.ts';
import { createInbox, type Inbox } from '../service/inbox-conversations.ts';
import { createAgentReplies, type ReplyWakeUp } from '../service/inbox-replies.ts';
import type { StaffAuthentication } from './staff-authentication.ts';

/** Where the agent inbox lives. */
export const INBOX_PREFIX = '/api/v1/agent';
const CONVERSATION = `${INBOX_PREFIX}/conversations/:id`;

export interface InboxRouteDeps {
  staff: StaffAuthentication;
  /** The sender (outbound/sender.ts), woken for a conversation once an agent's reply is committed. */
  sender: ReplyWakeUp;
}

/** The state changes of one conversation: `POST .../:id/<action>`, each answering the conversation. */
const ACTIONS = ['read', 'unassign', 'resolve', 'reopen', 'handback'] as const;
const ACTION_METHOD = {
  read: 'markRead',
  unassign: 'unassign',
  resolve: 'resolve',
  reopen: 'reopen',
  handback: 'handBack',
} as const satisfies Record<(typeof ACTIONS)[number], keyof Inbox>;

/**
 * The agent inbox (README, "Staff API", "Agent inbox"): `/api/v1/agent/*`, every route behind the API gate
 * and the staff authentication, every answer limited to the caller's scope. HTTP only: the services do
 * the work.
 */
export function registerInboxRoutes(ctx: PluginContext<MessagingEnv>, deps: InboxRouteDeps): void {
  const { staff } = deps;
  const inbox = createInbox({
    db: ctx.db,
    clock: ctx.clock,
    handoffIdleMs: ctx.config.MESSAGING_HANDOFF_IDLE_MS,
  });
  const replies = createAgentReplies({ db: ctx.db, clock: ctx.clock, sender: deps.sender });

  ctx.routes.add({
    method: 'GET',
    path: `${INBOX_PREFIX}/me`,
    authenticate: staff.authenticate,
    schema: { query: NoQuery },
    handler: async (req, res) => {
      res.json(await inbox.me(staff.scope(req)));
    },
  });

  // Lists and reads of conversations carry contacts' names, numbers and messages: audited as sensitive.
  ctx.routes.add({
    method: 'GET',
    path: `${INBOX_PREFIX}/conversations`,
    authenticate: staff.authenticate,
    sensitive: true,
    schema: { query: ConversationListQuery },
    handler: async (req, res, { query }) => {
      res.json(await inbox.list(staff.scope(req), query));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: CONVERSATION,
    authenticate: staff.authenticate,
    sensitive: true,
    schema: { params: ConversationIdParams, query: NoQuery },
    handler: async (req, res, { params }) => {
      res.json(await inbox.detail(staff.scope(req), params.id, DEFAULT_PAGE_SIZE));
    },
  });

  ctx.routes.add({
    method: 'GET',
    path: `${CONVERSATION}/messages`,
    authenticate: staff.authenticate,
    sensitive: true,
    schema: { params: ConversationIdParams, query: MessagesQuery },
    handler: async (req, res, { params, query }) => {
      res.json(await inbox.messages(staff.scope(req), params.id, query));
    },
  });

  for (const action of ACTIONS) {
    ctx.routes.add({
      method: 'POST',
      path: `${CONVERSATION}/${action}`,
      authenticate: staff.authenticate,
      schema: { params: ConversationIdParams, query: NoQuery, body: NoBody },
      handler: async (req, res, { params }) => {
        res.json(await inbox[ACTION_METHOD[action]](staff.scope(req), params.id));
      },
    });
  }

  ctx.routes.add({
    method: 'POST',
    path: `${CONVERSATION}/assign`,
    authenticate: staff.authenticate,
    schema: { params: ConversationIdParams, query: NoQuery, body: AssignBody },
    handler: async (req, res, { params, body }) => {
      res.json(await inbox.assign(staff.scope(req), params.id, body.userId));
    },
  });

  ctx.routes.add({
    method: 'POST',
    path: `${CONVERSATION}/replies`,
    authenticate: staff.authenticate,
    schema: { params: ConversationIdParams, query: NoQuery, body: ReplyBody },
    handler: async (req, res, { params, body }) => {
      const key = idempotencyKey(req);
      const result = await replies.reply(staff.scope(req), params.id, body.text, key);
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(result.replayed ? 200 : 201).json(result.message);
    },
  });
}

/** The request's Idempotency-Key, if it sent one; a malformed one is refused before anything is written. */
function idempotencyKey(req: Request): string | undefined {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header))
    throw messagingErrors.create('messaging.idempotency_key.invalid');
  return header;
}
