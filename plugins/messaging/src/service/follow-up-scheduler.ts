import {
  type Clock,
  type Database,
  type Logger,
  type Queryable,
  startLoop,
} from '../../../../gateway/src/plugin-api.ts';
import { decideFollowUp, type DueFollowUp } from '../domain/follow-up-decision.ts';
import { heldAfter } from '../domain/handoff.ts';
import { outboundPayload, templatePayload } from '../domain/outbound-reply.ts';
import { type ClaimedFollowUp, type FollowUpOutcome, followUpStore } from '../store/follow-up-store.ts';
import type { ReplyWakeUp } from './inbox-replies.ts';

/** Due follow-ups one transaction of the send pass takes at most. */
const CLAIM_LIMIT = 50;

export interface FollowUpSchedulerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** The outbox's sender: woken for the messages a pass queued (as for agent replies). */
  sender: ReplyWakeUp;
  /** How often the pass runs (MESSAGING_FOLLOW_UP_INTERVAL_MS). */
  intervalMs: number;
  handoffIdleMs: number;
}

/**
 * The follow-up pass (README, "Follow-ups"), a background loop on every replica: it schedules what the
 * rules call for, then sends the due follow-ups. Each one is claimed with its conversation's row under
 * `FOR UPDATE SKIP LOCKED`, decided there (the contact's last message, the handoff and the window read under
 * that lock), and its message queued in the outbox in the same transaction; the sender sends it after the
 * commit. Two replicas never take one follow-up, so none is queued twice.
 */
export function startFollowUps(deps: FollowUpSchedulerDeps) {
  const loop = startLoop({
    name: 'follow-up',
    intervalMs: deps.intervalMs,
    logger: deps.logger,
    pass: () => pass(deps),
  });
  return { kick: () => loop.kick(), stop: () => loop.stop() };
}

export type FollowUps = ReturnType<typeof startFollowUps>;

/** One pass: schedules, then sends one batch of due follow-ups; answers how many it sent or settled. */
async function pass(deps: FollowUpSchedulerDeps): Promise<number> {
  const now = deps.clock.now();
  await followUpStore.schedule(deps.db, now, heldAfter(now, deps.handoffIdleMs));
  const queued = new Set<string>();
  const settled = await deps.db.transaction(async (tx) => {
    const due = await followUpStore.claimDue(tx, now, CLAIM_LIMIT);
    for (const followUp of due) {
      const outcome = await sendOne(tx, followUp, now, deps.handoffIdleMs);
      if (outcome.status === 'sent') queued.add(followUp.conversationId);
      await followUpStore.settle(tx, followUp.id, outcome, now);
    }
    return due.length;
  });
  if (queued.size > 0) deps.sender.queued(queued);
  return settled;
}

/** Decides a claimed follow-up and queues its message when it goes out. */
async function sendOne(
  tx: Queryable,
  followUp: ClaimedFollowUp,
  now: Date,
  handoffIdleMs: number,
): Promise<FollowUpOutcome> {
  const decision = decideFollowUp(dueOf(followUp), now, handoffIdleMs);
  if ('status' in decision) return decision;
  const messageId = await followUpStore.enqueue(tx, {
    conversationId: followUp.conversationId,
    authorUserId: followUp.requestedBy,
    type: decision.send,
    text: decision.send === 'text' ? decision.text : null,
    payload:
      decision.send === 'text'
        ? outboundPayload(followUp, decision.text)
        : templatePayload(followUp, decision.template),
    at: now,
  });
  return { status: 'sent', messageId };
}

function dueOf(row: ClaimedFollowUp): DueFollowUp {
  return {
    manual: row.manual,
    kind: row.kind,
    basisAt: row.basisAt,
    text: row.text,
    template:
      row.templateName === null || row.templateLanguage === null
        ? null
        : { name: row.templateName, languageCode: row.templateLanguage, parameters: row.templateParameters },
    lastInboundAt: row.lastInboundAt,
    agentActiveAt: row.agentActiveAt,
    leadStatus: row.leadStatus,
  };
}
