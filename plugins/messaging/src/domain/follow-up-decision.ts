import type { FollowUpKind, FollowUpTemplate } from './follow-up-schemas.ts';
import { isHeld } from './handoff.ts';

/** WhatsApp's customer-service window: free-form messages reach a contact this long after their last message. */
export const SERVICE_WINDOW_MS = 24 * 3_600_000;

/** A due follow-up and the state of its conversation, as the send pass reads them under its row lock. */
export interface DueFollowUp {
  manual: boolean;
  kind: FollowUpKind | null;
  /** What a rule counted from; a manual follow-up's creation. */
  basisAt: Date;
  text: string | null;
  template: FollowUpTemplate | null;
  lastInboundAt: Date | null;
  agentActiveAt: Date | null;
  leadStatus: string | null;
}

export type FollowUpDecision =
  | { send: 'text'; text: string }
  | { send: 'template'; template: FollowUpTemplate }
  | { status: 'cancelled' | 'skipped_outside_window'; reason: string };

/**
 * What to do with a due follow-up at `now` (README, "Follow-ups"): cancelled when the contact wrote after its
 * basis, when an agent holds the conversation (a rule's only: an agent's own trigger is theirs to make), or
 * when a `lead_incomplete` lead is no longer incomplete. Otherwise inside the 24-hour window the text goes
 * out (the template when there is no text); outside it only the template, and without one it is skipped.
 */
export function decideFollowUp(due: DueFollowUp, now: Date, handoffIdleMs: number): FollowUpDecision {
  if (due.lastInboundAt !== null && due.lastInboundAt.getTime() > due.basisAt.getTime())
    return { status: 'cancelled', reason: 'the contact wrote again' };
  if (!due.manual && isHeld(due.agentActiveAt, now, handoffIdleMs))
    return { status: 'cancelled', reason: 'an agent holds the conversation' };
  if (due.kind === 'lead_incomplete' && due.leadStatus !== 'incomplete')
    return { status: 'cancelled', reason: 'the lead is no longer incomplete' };
  const windowOpen =
    due.lastInboundAt !== null && now.getTime() - due.lastInboundAt.getTime() < SERVICE_WINDOW_MS;
  if (windowOpen && due.text !== null) return { send: 'text', text: due.text };
  if (due.template !== null) return { send: 'template', template: due.template };
  return { status: 'skipped_outside_window', reason: 'outside the 24-hour window and no template' };
}
