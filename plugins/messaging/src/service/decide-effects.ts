import { setImmediate as nextTurn } from 'node:timers/promises';
import { normalisePhone } from '../conversation/extract/phone.ts';
import { firingRules, type EscalationRule } from '../domain/escalation-rules.ts';
import { leadStatus } from '../domain/lead.ts';
import { outboundPayload } from '../domain/outbound-reply.ts';
import { heldAfter, isHeld } from '../domain/handoff.ts';
import type { FaqMatch } from '../classifier/faq-phrases.ts';
import type { Classification, Intent } from '../classifier/types.ts';
import type { MessageEffects } from '../store/effects-store.ts';
import type { QueueHead } from '../store/queue-store.ts';
import type { ProcessingPorts } from './processing-ports.ts';

/** What deciding a message needs: the classifier and the engine, and the escalation rules. */
export interface DecideDeps {
  ports: ProcessingPorts;
  rules: readonly EscalationRule[];
  /** How long an agent's reply or take keeps the bot silent (MESSAGING_HANDOFF_IDLE_MS). */
  handoffIdleMs: number;
}

/** A batch's messages, decided: the effects of those that went through, and those that threw. */
export interface Decided {
  done: MessageEffects[];
  failed: Array<[QueueHead, unknown]>;
}

/**
 * Decides every message of a batch, each started on a turn of its own (see `settleEachOnItsOwnTurn`); a
 * message that throws fails alone.
 */
export async function decideEach(deps: DecideDeps, heads: readonly QueueHead[], now: Date): Promise<Decided> {
  const outcomes = await settleEachOnItsOwnTurn(heads, (head) => decideEffects(deps, head, now));
  const decided: Decided = { done: [], failed: [] };
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') decided.done.push(outcome.value);
    else decided.failed.push([heads[i] as QueueHead, outcome.reason]);
  });
  return decided;
}

/**
 * What one message does, computed without writing anything: its classification, the step of its
 * conversation (session, lead fields learned, language), the escalation notifications that fire, and its
 * replies rendered as send API requests.
 */
export async function decideEffects(deps: DecideDeps, head: QueueHead, now: Date): Promise<MessageEffects> {
  const classification = await deps.ports.classify(head.text);
  if (isHeld(head.agentActiveAt, now, deps.handoffIdleMs))
    return heldEffects(deps, head, classification, now);
  const faq = ENGINE_FIRST.has(classification.intent) ? null : deps.ports.faq.match(head.text, head.language);
  if (faq) return faqEffects(deps, head, faq, now);
  const output = await deps.ports.step({
    text: head.text,
    messageType: head.type,
    classification,
    session: head.capture,
    lead: {
      name: head.lead.name ?? undefined,
      email: head.lead.email ?? undefined,
      phone: head.lead.phone ?? undefined,
    },
    // The WhatsApp `from`, read like a typed number: a number that is not an Indonesian mobile (a foreign
    // one) or no number at all (a username-only user) leaves the lead without a phone (README, "How a
    // message flows", point 4).
    senderPhone: head.contactPhone === null ? null : normalisePhone(head.contactPhone),
    defaultAnswersInARow: head.defaultAnswersInARow,
    language: head.language,
    now,
  });
  const patch = output.leadPatch;
  const hasPatch = patch.name !== undefined || patch.email !== undefined || patch.phone !== undefined;
  const merged = {
    name: patch.name ?? head.lead.name,
    email: patch.email ?? head.lead.email,
    phone: patch.phone ?? head.lead.phone,
  };
  const leadAfter = hasPatch ? leadStatus(merged) : head.lead.status;
  const defaultStreak = classification.tier === 4 ? head.defaultAnswersInARow + 1 : 0;
  const firing = firingRules(deps.rules, {
    intent: classification.intent,
    handlerEscalation: output.result.escalation?.reason ?? null,
    leadBefore: head.lead.status,
    leadAfter,
    defaultAnswersInARow: defaultStreak,
  });
  const notifications = firing.map((rule) => ({
    scopes: rule.notify,
    eventKey: `${rule.id}:${head.conversationId}`,
    kind: rule.kind,
    payload: { rule: rule.id, intent: classification.intent, messageId: head.id, lead: leadAfter },
  }));
  if (output.result.notifyAdmin) {
    notifications.push({
      scopes: ['global'],
      eventKey: `${output.result.notifyAdmin.eventKey}:${head.conversationId}`,
      kind: 'admin.notice',
      payload: { rule: 'notify_admin', intent: classification.intent, messageId: head.id, lead: leadAfter },
    });
  }
  const replies = output.replies.map((reply) => {
    const body = deps.ports.render(reply, output.language);
    return { template: reply.template, body, payload: outboundPayload(head, body) };
  });
  return {
    messageId: head.id,
    conversationId: head.conversationId,
    classification,
    inbox: {
      heldAfter: heldAfter(now, deps.handoffIdleMs),
      status: firing.find((rule) => rule.conversationStatus !== undefined)?.conversationStatus ?? null,
      inboundText: head.text,
      replyText: replies.at(-1)?.body ?? null,
    },
    leadPatch: hasPatch
      ? { name: patch.name ?? null, email: patch.email ?? null, phone: patch.phone ?? null }
      : null,
    notifications,
    replies,
    session: output.session,
    language: output.language,
    defaultStreak,
    contactName: head.contactName,
    knowledge: output.knowledge ?? null,
  };
}

/**
 * Intents the conversation engine keeps even when a FAQ question matches: a request for a person escalates,
 * and a message with the contact's data feeds lead capture (README, "FAQ", "Answers from the FAQ").
 */
const ENGINE_FIRST: ReadonlySet<Intent> = new Set(['askHuman', 'sharePersonalInfo']);

/**
 * What a message answered by a FAQ entry does: the entry's answer is the reply, recorded as a tier-1
 * `generalInfo` with the matched question as evidence. Like a question asked while capture waits, the
 * session and the lead stay as they are, and it is no failed answer (the default streak ends).
 */
function faqEffects(deps: DecideDeps, head: QueueHead, faq: FaqMatch, now: Date): MessageEffects {
  const classification: Classification = {
    intent: 'generalInfo',
    tier: 1,
    score: 1,
    margin: null,
    evidence: `faq:${faq.question}`,
  };
  const body = faq.answer;
  return {
    ...heldEffects(deps, head, classification, now),
    inbox: {
      heldAfter: heldAfter(now, deps.handoffIdleMs),
      status: null,
      inboundText: head.text,
      replyText: body,
    },
    replies: [{ template: FAQ_TEMPLATE, body, payload: outboundPayload(head, body) }],
    language: faq.language,
    defaultStreak: 0,
  };
}

/** The `template` an outbound FAQ answer is stored with (its text is the entry's answer, not a template's). */
export const FAQ_TEMPLATE = 'faq';

/**
 * What a message does while an agent holds its conversation (domain/handoff.ts): it is classified, counted
 * unread and shown, but the conversation engine does not see it (the session, the lead and the default
 * streak stay as they are), no escalation fires and the bot does not answer. The agent reads it.
 */
function heldEffects(
  deps: DecideDeps,
  head: QueueHead,
  classification: Classification,
  now: Date,
): MessageEffects {
  return {
    messageId: head.id,
    conversationId: head.conversationId,
    classification,
    inbox: {
      heldAfter: heldAfter(now, deps.handoffIdleMs),
      status: null,
      inboundText: head.text,
      replyText: null,
    },
    leadPatch: null,
    notifications: [],
    replies: [],
    session: head.capture,
    language: head.language,
    defaultStreak: head.defaultAnswersInARow,
    contactName: head.contactName,
    knowledge: null,
  };
}

/**
 * Starts `work` for each item on a turn of the event loop of its own and settles them all, like
 * `Promise.allSettled(items.map(work))`. The synchronous part of processing a message (classifier tiers
 * 1–2, extraction) then runs between two turns, where the gateway answers requests that arrived
 * meanwhile, instead of a whole batch of it in one stretch (see plugins/messaging/README.md, "Bounded
 * work per message"). The asynchronous parts (model calls) still overlap.
 */
async function settleEachOnItsOwnTurn<T, R>(
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<Array<PromiseSettledResult<R>>> {
  const settling: Array<Promise<PromiseSettledResult<R>>> = [];
  for (const item of items) {
    await nextTurn();
    // The outcome is handled as soon as the work starts, so a failure is never an unhandled rejection.
    settling.push(
      work(item).then(
        (value) => ({ status: 'fulfilled', value }),
        (reason: unknown) => ({ status: 'rejected', reason }),
      ),
    );
  }
  return Promise.all(settling);
}
