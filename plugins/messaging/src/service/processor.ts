import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { EscalationRule } from '../domain/escalation-rules.ts';
import type { HandedOffReply } from '../domain/outbound-reply.ts';
import { effectsStore, type MessageEffects, type QueuedReply } from '../store/effects-store.ts';
import { queueStore, type QueueHead } from '../store/queue-store.ts';
import { decideEach } from './decide-effects.ts';
import type { MessagingMetrics } from './messaging-metrics.ts';
import type { ProcessingPorts } from './processing-ports.ts';
import { recordFailure, recordProcessed } from './processing-outcomes.ts';
import { writeOneByOne } from './write-one-by-one.ts';

/** What processing needs from the sender (outbound/sender.ts), the next stage of the pipeline. */
export interface ReplySender {
  /** Until when replies written now may be leased to this worker (see `deliver`); null: not now. */
  leaseUntil(): Date | null;
  /** Sends the replies a committed batch leased to this worker. */
  deliver(replies: readonly HandedOffReply[]): void;
  /** Replies of these conversations were left to the sender's claim (others of theirs were pending). */
  queued(conversationIds: ReadonlySet<string>): void;
}

export interface ProcessorDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  metrics: MessagingMetrics;
  ports: ProcessingPorts;
  rules: readonly EscalationRule[];
  /** How long an agent's reply or take keeps the bot silent (MESSAGING_HANDOFF_IDLE_MS; domain/handoff.ts). */
  handoffIdleMs: number;
  /** Processing attempts of one message before it is dead-lettered. */
  maxAttempts: number;
  /** Conversations whose next message one batch takes at most. */
  batchSize: number;
  sender: ReplySender;
}

/** A batch once its transaction is over. */
interface Batch {
  /** When the batch started: its messages were decided, and their retries are timed, from here. */
  now: Date;
  heads: QueueHead[];
  /** Messages whose processing or whose writes failed, with the error. */
  failed: Array<[QueueHead, unknown]>;
  processed: number;
  /** The replies written to the outbox. */
  queued: QueuedReply[];
}

/**
 * The processing queue (plugins/messaging/README.md, "How a message flows", point 3; ADR 0006). A batch
 * takes the next message of up to `batchSize` conversations (the queue store's `takeHeads`: one message
 * per conversation, each conversation locked for the batch's transaction). The messages are classified and
 * stepped through the conversation engine concurrently (a message of a conversation an agent holds is
 * only classified: domain/handoff.ts); then all their effects — the lead upserts,
 * escalation notifications, replies queued in the outbox, conversation state, and each message's
 * `processed` mark — are written with one statement per kind and committed together. A crash or a
 * restart therefore never loses a message and never processes one twice.
 *
 * Every attempt is counted before it starts, in its own statement, so a message that crashes the process
 * is dead-lettered after MESSAGING_MAX_ATTEMPTS like one that throws. A message that fails waits for its
 * retry and holds back the later messages of its conversation (order first); a dead one no longer does.
 * If a batch's writes fail, its messages are retried one per transaction, so one bad message cannot
 * block the others. Once the batch is recorded, its replies go to the sender.
 */
export function createProcessor(deps: ProcessorDeps) {
  /** One batch; returns how many messages it processed. */
  async function processBatch(): Promise<number> {
    const batch = await takeDecideAndWrite(deps);
    if (batch.heads.length === 0) return 0;
    for (const [head, err] of batch.failed) await recordFailure(deps, head, err, batch.now.getTime());
    recordProcessed(deps, batch.heads, batch.failed);
    handOver(deps.sender, batch);
    return batch.processed;
  }

  return { processBatch };
}

export type Processor = ReturnType<typeof createProcessor>;

/** A batch decided inside its transaction, before its effects are written. */
interface DecidedBatch extends Pick<Batch, 'now' | 'heads' | 'failed'> {
  /** The effects of the messages that went through. */
  done: MessageEffects[];
  /** The lease its replies are written with (see `ReplySender.leaseUntil`). */
  leaseUntil: Date | null;
}

/**
 * The batch's transaction: takes the heads, counts their attempt, decides each message and writes the
 * effects of those that went through. When the write (or its commit) fails, the messages are written one
 * by one instead.
 */
async function takeDecideAndWrite(deps: ProcessorDeps): Promise<Batch> {
  const reached: { decided?: DecidedBatch } = {};
  try {
    return await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const heads = await queueStore.takeHeads(tx, now, deps.batchSize);
      if (heads.length === 0) return { now, heads, failed: [], processed: 0, queued: [] };
      // FAQ edits of any replica reach the next batch (README, "FAQ", "Answers from the FAQ").
      await deps.ports.faq.refresh(tx);
      // Counted before the work, committed on its own: a crash mid-work still counts as an attempt.
      await queueStore.countAttempts(
        deps.db,
        heads.map((h) => h.id),
      );
      const { done, failed } = await decideEach(deps, heads, now);
      const decided = { now, heads, done, failed, leaseUntil: deps.sender.leaseUntil() };
      reached.decided = decided;
      const queued = await effectsStore.write(tx, done, now, decided.leaseUntil);
      return { now, heads, failed, processed: done.length, queued };
    });
  } catch (err) {
    if (reached.decided === undefined) throw err;
    return writeAfterFailure(deps, reached.decided, err);
  }
}

/**
 * The batch's shared write failed: a lone message fails with that error; several are isolated, each
 * written in a transaction of its own (the attempt already counted stays counted).
 */
async function writeAfterFailure(deps: ProcessorDeps, decided: DecidedBatch, err: unknown): Promise<Batch> {
  const { now, heads, done, failed, leaseUntil } = decided;
  if (done.length === 1) {
    const head = heads.find((h) => h.id === done[0]?.messageId) as QueueHead;
    return { now, heads, failed: [...failed, [head, err]], processed: 0, queued: [] };
  }
  deps.logger.warn(
    { err: { message: (err as Error).message }, batch: done.length },
    'messaging: batch write failed; retrying one by one',
  );
  const written = await writeOneByOne(deps.db, heads, done, now, leaseUntil);
  return {
    now,
    heads,
    failed: [...failed, ...written.failed],
    processed: written.processed,
    queued: written.queued,
  };
}

/**
 * Hands the sender the replies the batch leased to this worker, to send now, and names the conversations
 * whose replies were left to its claim.
 */
function handOver(sender: ReplySender, batch: Batch): void {
  const phoneNumberIds = new Map(batch.heads.map((h) => [h.conversationId, h.phoneNumberId]));
  sender.deliver(
    batch.queued
      .filter((reply) => reply.leased)
      .map((reply) => ({
        id: reply.id,
        conversationId: reply.conversationId,
        phoneNumberId: phoneNumberIds.get(reply.conversationId) as string,
        payload: reply.payload,
        sendAttempts: 1,
      })),
  );
  const waiting = new Set(batch.queued.filter((reply) => !reply.leased).map((reply) => reply.conversationId));
  if (waiting.size > 0) sender.queued(waiting);
}
