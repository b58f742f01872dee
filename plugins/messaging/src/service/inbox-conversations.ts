import { z } from 'zod';
import type { Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { decodeCursor } from '../domain/cursor.ts';
import type { ConversationListFilter, MessagesPageQuery } from '../domain/inbox-schemas.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { inboxMessageStore } from '../store/inbox-message-store.ts';
import { type ConversationRow, inboxStore, type InboxListFilter } from '../store/inbox-store.ts';
import { staffScopeStore } from '../store/staff-scope-store.ts';
import {
  type ConversationView,
  conversationView,
  INBOX_CURSOR,
  inboxCursor,
  MESSAGES_CURSOR,
  messagesCursor,
  type MessageView,
  messageView,
} from './inbox-views.ts';

export interface InboxDeps {
  db: Database;
  clock: Clock;
  /** MESSAGING_HANDOFF_IDLE_MS: how long an agent's reply or take keeps the bot silent. */
  handoffIdleMs: number;
}

export interface MessagePage {
  items: MessageView[];
  olderCursor: string | null;
  newerCursor: string | null;
}

const InboxPositionSchema = z.strictObject({ us: z.int(), id: z.uuid() });
const MessagesPositionSchema = z.strictObject({ c: z.uuid(), s: z.int().min(0) });

/**
 * The agent inbox (README, "Staff API", "Agent inbox"): lists, reads and state changes of conversations,
 * each limited to the caller's scope in SQL. A conversation outside the scope is answered exactly like one
 * that does not exist.
 */
export function createInbox(deps: InboxDeps) {
  const view = (row: ConversationRow) => conversationView(row, deps.clock.now(), deps.handoffIdleMs);
  const found = (row: ConversationRow | null): ConversationView => {
    if (row === null) throw messagingErrors.create('messaging.conversation.not_found');
    return view(row);
  };

  async function messagePage(conversationId: string, query: MessagesPageQuery): Promise<MessagePage> {
    const before = query.before === undefined ? undefined : messagePosition(conversationId, query.before);
    const after = query.after === undefined ? undefined : messagePosition(conversationId, query.after);
    const { rows, more } = await inboxMessageStore.page(
      deps.db,
      conversationId,
      { before, after },
      query.limit,
    );
    const first = rows[0];
    const last = rows.at(-1);
    const older =
      first !== undefined &&
      (after === undefined
        ? more
        : await inboxMessageStore.hasBefore(deps.db, conversationId, Number(first.seq)));
    return {
      items: rows.map(messageView),
      olderCursor: older && first ? messagesCursor(conversationId, first.seq) : null,
      newerCursor: last ? messagesCursor(conversationId, last.seq) : (query.after ?? null),
    };
  }

  return {
    /** Who the caller is and which clusters they see. */
    async me(scope: StaffScope) {
      const clusters = await inboxStore.clusters(deps.db, clusterLimit(scope), scope.userId);
      return { userId: scope.userId, admin: scope.admin, clusters };
    },

    /** One page of the inbox. */
    async list(scope: StaffScope, query: ConversationListFilter) {
      const clusters = clusterLimit(scope);
      if (query.cluster !== undefined && !(await inboxStore.clusterVisible(deps.db, query.cluster, clusters)))
        throw messagingErrors.create('messaging.cluster.not_found');
      const after =
        query.cursor === undefined ? null : decodeCursor(INBOX_CURSOR, query.cursor, InboxPositionSchema);
      if (query.cursor !== undefined && after === null)
        throw messagingErrors.create('messaging.cursor.invalid');
      const rows = await inboxStore.list(deps.db, clusters, listFilter(scope, query), after, query.limit + 1);
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        items: page.map(view),
        nextCursor: rows.length > query.limit && last ? inboxCursor(last) : null,
      };
    },

    /** One conversation with its last page of messages. */
    async detail(scope: StaffScope, id: string, messagesLimit: number) {
      const conversation = found(await inboxStore.find(deps.db, id, clusterLimit(scope)));
      return { ...conversation, messages: await messagePage(id, { limit: messagesLimit }) };
    },

    /** A page of a conversation's messages. */
    async messages(scope: StaffScope, id: string, query: MessagesPageQuery): Promise<MessagePage> {
      found(await inboxStore.find(deps.db, id, clusterLimit(scope)));
      return messagePage(id, query);
    },

    markRead: async (scope: StaffScope, id: string) =>
      found(await inboxStore.markRead(deps.db, id, clusterLimit(scope))),

    unassign: async (scope: StaffScope, id: string) =>
      found(await inboxStore.unassign(deps.db, id, clusterLimit(scope), deps.clock.now())),

    resolve: async (scope: StaffScope, id: string) =>
      found(await inboxStore.resolve(deps.db, id, clusterLimit(scope), deps.clock.now())),

    reopen: async (scope: StaffScope, id: string) =>
      found(await inboxStore.reopen(deps.db, id, clusterLimit(scope), deps.clock.now())),

    handBack: async (scope: StaffScope, id: string) =>
      found(await inboxStore.handBack(deps.db, id, clusterLimit(scope), deps.clock.now())),

    /**
     * Assigns the conversation to a member of its cluster. Assigning yourself is taking it: the bot goes
     * silent. An admin may take any conversation they see, as replying to it would make them its holder
     * anyway; anyone else must be a member of the conversation's cluster.
     */
    async assign(scope: StaffScope, id: string, userId: string): Promise<ConversationView> {
      const row = await deps.db.transaction(async (tx) => {
        const conversation = await inboxStore.lock(tx, id, clusterLimit(scope));
        if (conversation === null) return null;
        const take = userId === scope.userId;
        const allowed =
          (take && scope.admin) ||
          (conversation.clusterId !== null &&
            (await staffScopeStore.isMember(tx, conversation.clusterId, userId)));
        if (!allowed) throw messagingErrors.create('messaging.assignee.not_member');
        return inboxStore.assign(tx, id, userId, take, deps.clock.now());
      });
      return found(row);
    },
  };

  /** The position a messages cursor holds, if it is one of this conversation's. */
  function messagePosition(conversationId: string, cursor: string): number {
    const position = decodeCursor(MESSAGES_CURSOR, cursor, MessagesPositionSchema);
    if (position === null || position.c !== conversationId)
      throw messagingErrors.create('messaging.cursor.invalid');
    return position.s;
  }
}

export type Inbox = ReturnType<typeof createInbox>;

/** The list's filters as the store takes them. */
function listFilter(scope: StaffScope, query: ConversationListFilter): InboxListFilter {
  return {
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.assigned === 'any' ? {} : { assignee: query.assigned === 'me' ? scope.userId : null }),
    ...(query.cluster === undefined ? {} : { cluster: query.cluster }),
    ...(query.unread === undefined ? {} : { unread: query.unread }),
    ...(query.q === undefined ? {} : { pattern: `%${escapeLike(query.q)}%` }),
  };
}

/** `text` matched literally by LIKE: its wildcards and the escape character are escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
