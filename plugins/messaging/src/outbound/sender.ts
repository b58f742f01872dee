import { type Database, startLoop } from '../../../../gateway/src/plugin-api.ts';
import type { HandedOffReply } from '../domain/outbound-reply.ts';
import { outboxStore } from '../store/outbox-store.ts';
import { createHandOffs } from './hand-offs.ts';
import { createSendApiClient, type SendApiClient, type SendOutcome } from './send-api.ts';
import { recordSendResults, type SendResultDeps } from './send-results.ts';

/** Replies one pass of the claim takes at most. */
const CLAIM_LIMIT = 100;

export interface SenderDeps extends SendResultDeps {
  db: Database;
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
  /** How long a claimed or handed-over reply stays with this worker (longer than `timeoutMs`). */
  leaseMs: number;
  /** How often the claim looks for replies that are due. */
  intervalMs: number;
}

/**
 * Sends queued replies through the provider's send API (plugins/messaging/README.md, "How a message
 * flows", point 6). Replies are rows in the outbox (the outbox store): claimed under a lease (no
 * transaction is held across the HTTP call), sent in order per conversation, then marked `sent` with the
 * provider's message id (status webhooks later move them to delivered/read/failed). A failure is retried
 * with backoff, and after MESSAGING_SEND_MAX_ATTEMPTS the reply is `failed`. A process that dies mid-send
 * leaves the lease to run out and the reply is tried again: delivery to the provider is at least once.
 *
 * The common case skips the claim: the processing batch writes the replies of a conversation with nothing
 * pending already leased to this worker (`leaseUntil()`), and hands them over (`deliver`) once it has
 * committed; they are sent at once, one after another per conversation. A failure stops that
 * conversation's handed-over replies and gives the rest back to the claim, behind the failed one.
 *
 * The claim is the sender's own loop: it polls every `intervalMs`, runs at once for replies the processor
 * left to it (`queued`), and again when a handed-over send they wait behind settles, so they do not wait
 * for its next poll.
 */
export function startSender(deps: SenderDeps) {
  const api = createSendApiClient(deps);
  const handOffs = createHandOffs();
  /** Handed-over sends in flight, for `stop` to wait for. */
  const inFlight = new Set<Promise<void>>();
  const claim = startLoop({
    name: 'send',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    pass: () => claimAndSend(deps, api, CLAIM_LIMIT),
  });

  return {
    /** Until when replies written now may be leased to this worker (see `deliver`); null: not now. */
    leaseUntil(): Date | null {
      return handOffs.canLease() ? new Date(deps.clock.nowMs() + deps.leaseMs) : null;
    },

    /** Sends replies leased to this worker by a committed batch; failures are recorded, never thrown. */
    deliver(replies: readonly HandedOffReply[]): void {
      if (replies.length === 0) return;
      handOffs.started(replies);
      const task = sendHandedOff(deps, api, replies)
        .catch((err: unknown) =>
          // The replies keep their lease: the claim takes them again once it runs out.
          deps.logger.warn({ err: { message: (err as Error).message } }, 'messaging: recording sends failed'),
        )
        .finally(() => {
          if (handOffs.settled(replies)) claim.kick();
          inFlight.delete(task);
        });
      inFlight.add(task);
    },

    /**
     * Replies of these conversations were left to the claim (others of theirs were pending): the claim
     * runs now, and again when a handed-over send they wait behind settles.
     */
    queued(conversationIds: Iterable<string>): void {
      handOffs.waitBehind(conversationIds);
      claim.kick();
    },

    /**
     * Shutdown: the handed-over sends in flight finish first, then the claim stops, and last the
     * kept-alive connections to the send API close.
     */
    async stop(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight);
      await claim.stop();
      api.close();
    },
  };
}

export type Sender = ReturnType<typeof startSender>;

/** The claim: sends the replies that are due; returns how many it tried. */
async function claimAndSend(deps: SenderDeps, api: SendApiClient, limit: number): Promise<number> {
  const now = deps.clock.now();
  const claimed = await outboxStore.claim(deps.db, now, limit, new Date(now.getTime() + deps.leaseMs));
  if (claimed.length === 0) return 0;
  const results = await Promise.all(
    claimed.map(async (reply) => [reply, await api.send(reply.phoneNumberId, reply.payload)] as const),
  );
  await recordSendResults(deps, results);
  return claimed.length;
}

/**
 * Sends handed-over replies: conversations in parallel, each conversation's replies in order. A failure
 * stops its conversation: the replies after it are given back to the claim, due now, their lease undone.
 */
async function sendHandedOff(
  deps: SenderDeps,
  api: SendApiClient,
  replies: readonly HandedOffReply[],
): Promise<void> {
  const byConversation = new Map<string, HandedOffReply[]>();
  for (const reply of replies) {
    const list = byConversation.get(reply.conversationId);
    if (list) list.push(reply);
    else byConversation.set(reply.conversationId, [reply]);
  }
  const results: Array<[HandedOffReply, SendOutcome]> = [];
  const untried: string[] = [];
  await Promise.all(
    [...byConversation.values()].map(async (list) => {
      for (let i = 0; i < list.length; i++) {
        const reply = list[i] as HandedOffReply;
        const outcome = await api.send(reply.phoneNumberId, reply.payload);
        results.push([reply, outcome]);
        if ('error' in outcome) {
          untried.push(...list.slice(i + 1).map((r) => r.id));
          break;
        }
      }
    }),
  );
  await recordSendResults(deps, results);
  if (untried.length > 0) await outboxStore.release(deps.db, untried, deps.clock.now());
}
