import { createHash } from 'node:crypto';
import type { Clock, Database, Queryable } from '../../../../gateway/src/plugin-api.ts';
import { outboundPayload } from '../domain/outbound-reply.ts';
import { clusterLimit, type StaffScope } from '../domain/staff-scope.ts';
import { messagingErrors } from '../errors.ts';
import { agentReplyStore } from '../store/agent-reply-store.ts';
import type { MessageRow } from '../store/inbox-message-store.ts';
import { inboxStore } from '../store/inbox-store.ts';
import { type MessageView, messageView } from './inbox-views.ts';

/** How long an Idempotency-Key is remembered. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/** What agent replies need from the sender (outbound/sender.ts): a wake-up for the replies just queued. */
export interface ReplyWakeUp {
  queued(conversationIds: ReadonlySet<string>): void;
}

export interface AgentReplyDeps {
  db: Database;
  clock: Clock;
  sender: ReplyWakeUp;
}

export interface AgentReplyResult {
  message: MessageView;
  /** An earlier request with the same Idempotency-Key created it: nothing was sent again. */
  replayed: boolean;
}

/**
 * Agent replies (README, "Staff API", "Agent inbox"; ADR 0010). A reply is an outbound message in the
 * outbox, authored by the agent, sent by the sender in the conversation's order (after any bot reply still
 * pending). The same transaction makes the conversation the agent's: the bot goes silent, the agent holds
 * it unless someone else does, and it is open. With an Idempotency-Key, the same request again answers the
 * reply it created instead of sending a second one.
 */
export function createAgentReplies(deps: AgentReplyDeps) {
  return {
    async reply(
      scope: StaffScope,
      conversationId: string,
      text: string,
      idempotencyKey: string | undefined,
    ): Promise<AgentReplyResult> {
      const result = await deps.db.transaction((tx) =>
        write(deps, tx, scope, conversationId, text, idempotencyKey),
      );
      // After the commit: the sender's claim can see the reply now.
      if (!result.replayed) deps.sender.queued(new Set([conversationId]));
      return { message: messageView(result.row), replayed: result.replayed };
    },
  };
}

export type AgentReplies = ReturnType<typeof createAgentReplies>;

async function write(
  deps: AgentReplyDeps,
  tx: Queryable,
  scope: StaffScope,
  conversationId: string,
  text: string,
  key: string | undefined,
): Promise<{ row: MessageRow; replayed: boolean }> {
  const now = deps.clock.now();
  // Two requests with one key are serialised before anything is read, so the second sees the key the first
  // stored (ADR 0010). The conversation's row lock alone would serialise a doubled request, but not one key
  // sent with two conversations at once; the key is locked first, so the order is always key, then row.
  if (key !== undefined) await agentReplyStore.lockKey(tx, scope.userId, key);
  const conversation = await inboxStore.lock(tx, conversationId, clusterLimit(scope));
  if (conversation === null) throw messagingErrors.create('messaging.conversation.not_found');
  const hash = requestHash(conversationId, text);
  if (key !== undefined) {
    const replay = await replayed(tx, scope.userId, key, hash, conversationId, now);
    if (replay !== null) return { row: replay, replayed: true };
  }
  const row = await agentReplyStore.insert(tx, {
    conversationId,
    userId: scope.userId,
    text,
    payload: outboundPayload(conversation, text),
    at: now,
  });
  await agentReplyStore.takeOver(tx, conversationId, scope.userId, text, now);
  if (key !== undefined) {
    await agentReplyStore.remember(tx, {
      userId: scope.userId,
      key,
      conversationId,
      requestHash: hash,
      messageId: row.id,
      at: now,
    });
    await agentReplyStore.purgeExpired(tx, new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS));
  }
  return { row, replayed: false };
}

/**
 * The reply an earlier request with this key created, when it was the same request; a key used in the
 * last 24 hours for another request is refused. Null: the key is new (or expired).
 */
async function replayed(
  tx: Queryable,
  userId: string,
  key: string,
  hash: string,
  conversationId: string,
  now: Date,
): Promise<MessageRow | null> {
  const earlier = await agentReplyStore.findRequest(
    tx,
    userId,
    key,
    new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS),
  );
  if (earlier === null) return null;
  if (earlier.requestHash !== hash) throw messagingErrors.create('messaging.idempotency_key.reused');
  // The key's row goes with its message (ON DELETE CASCADE), so the message is there.
  return agentReplyStore.message(tx, conversationId, earlier.messageId);
}

/** What makes two requests the same: the conversation and the text. */
function requestHash(conversationId: string, text: string): string {
  return createHash('sha256')
    .update(JSON.stringify([conversationId, text]))
    .digest('hex');
}
