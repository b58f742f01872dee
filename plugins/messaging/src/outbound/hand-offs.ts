import type { HandedOffReply } from '../domain/outbound-reply.ts';

/** Direct sends in flight beyond which new replies are left to the claim (a slow send API holds them). */
const MAX_HANDED_OFF_IN_FLIGHT = 200;

/** The bookkeeping of the replies handed over to this worker that are still being sent. */
export interface HandOffs {
  /** Whether new replies may be leased to this worker at write time. */
  canLease(): boolean;
  /** Replies handed over: counted, per conversation too, until they settle. */
  started(replies: readonly HandedOffReply[]): void;
  /** Replies of these conversations were left to the claim: those behind a send in flight wait for it. */
  waitBehind(conversationIds: Iterable<string>): void;
  /** Replies settled; true when replies that waited behind them may be claimed now. */
  settled(replies: readonly HandedOffReply[]): boolean;
}

/**
 * Counts the handed-over replies in flight (new replies are leased only below a bound), per conversation,
 * and remembers the conversations whose later replies were left to the claim behind one of them: when the
 * last send of such a conversation settles, the claim should run at once rather than at its next poll.
 */
export function createHandOffs(): HandOffs {
  let inFlight = 0;
  /** Handed-over replies in flight per conversation. */
  const byConversation = new Map<string, number>();
  /** Conversations with replies left to the claim behind a handed-over send still in flight. */
  const waitingBehind = new Set<string>();

  return {
    canLease: () => inFlight < MAX_HANDED_OFF_IN_FLIGHT,

    started(replies) {
      inFlight += replies.length;
      for (const { conversationId } of replies)
        byConversation.set(conversationId, (byConversation.get(conversationId) ?? 0) + 1);
    },

    waitBehind(conversationIds) {
      for (const id of conversationIds) if (byConversation.has(id)) waitingBehind.add(id);
    },

    settled(replies) {
      inFlight -= replies.length;
      let wake = false;
      for (const { conversationId } of replies) {
        const left = (byConversation.get(conversationId) ?? 1) - 1;
        if (left > 0) {
          byConversation.set(conversationId, left);
          continue;
        }
        byConversation.delete(conversationId);
        if (waitingBehind.delete(conversationId)) wake = true;
      }
      return wake;
    },
  };
}
