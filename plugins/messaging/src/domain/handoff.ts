/**
 * The bot/human handoff (README, "Staff API", "Agent inbox"; ADR 0010). A conversation is held by an agent
 * while the last time an agent replied in it or took it (`agent_active_at`) is less than the idle time
 * (MESSAGING_HANDOFF_IDLE_MS) ago; while held, the bot stores and classifies the contact's messages but
 * does not answer them. A hand-back clears `agent_active_at`, so the bot answers the next message; the
 * idle time passing does the same without anyone acting.
 */
export type Handler = 'bot' | 'agent';

export interface HandoffState {
  /** Who answers the contact's next message. */
  readonly handler: Handler;
  /** When the bot answers again on its own if no agent acts before (null: it answers now). */
  readonly botResumesAt: Date | null;
}

/**
 * The moment after which an agent's activity still holds a conversation at `now`: held exactly when
 * `agent_active_at > heldAfter(now, idleMs)`. Processing and the inbox both compare against it, so they
 * never disagree on who answers.
 */
export function heldAfter(now: Date, idleMs: number): Date {
  return new Date(now.getTime() - idleMs);
}

/** Whether an agent holds the conversation at `now`, given its `agent_active_at`. */
export function isHeld(agentActiveAt: Date | null, now: Date, idleMs: number): boolean {
  return agentActiveAt !== null && agentActiveAt.getTime() > heldAfter(now, idleMs).getTime();
}

/** Who answers a conversation at `now`, and until when an agent holds it. */
export function handoffState(agentActiveAt: Date | null, now: Date, idleMs: number): HandoffState {
  if (agentActiveAt === null || !isHeld(agentActiveAt, now, idleMs))
    return { handler: 'bot', botResumesAt: null };
  return { handler: 'agent', botResumesAt: new Date(agentActiveAt.getTime() + idleMs) };
}
