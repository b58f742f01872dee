import type { CaptureSession, LeadFields } from '../types.ts';

/**
 * How long a lead capture session lives after its last inbound message (plugins/messaging/README.md, "The
 * capture state machine").
 */
export const SESSION_TTL_MS = 6 * 60 * 60 * 1000;

export type Slot = 'name' | 'email';

/** The session of a conversation that is not capturing a lead. */
export function idleSession(): CaptureSession {
  return { state: 'idle', startedAt: null, lastActivityAt: null, reasked: { name: false, email: false } };
}

/**
 * Applies the 6 h TTL: a session whose last inbound message is
 * more than 6 h before `now` is reset to idle, so a late answer never continues a stale prompt and the bot
 * never nags after the user went away. The lead's fields are not touched: what was learned stays known.
 * An unreadable timestamp counts as expired.
 */
export function expireSession(
  session: CaptureSession,
  now: Date,
): { session: CaptureSession; expired: boolean } {
  if (session.lastActivityAt === null) return { session, expired: false };
  const last = Date.parse(session.lastActivityAt);
  const stale = Number.isNaN(last) || now.getTime() - last > SESSION_TTL_MS;
  if (!stale) return { session, expired: false };
  return { session: idleSession(), expired: session.state !== 'idle' };
}

/** The slot the bot asked for last, or null. */
export function awaitedSlot(session: CaptureSession): Slot | null {
  if (session.state === 'awaiting_name') return 'name';
  if (session.state === 'awaiting_email') return 'email';
  return null;
}

/** What capture still needs, in the document's order: the name, then the email (the phone is a bonus). */
export function missingSlot(lead: LeadFields): Slot | null {
  if (!lead.name) return 'name';
  if (!lead.email) return 'email';
  return null;
}

/**
 * A session the bot gave up on after re-asking once: idle, with the re-ask marks kept until the TTL runs
 * out. While paused only an explicit wish to register or valid data restarts capture.
 */
export function isPaused(session: CaptureSession): boolean {
  return session.state === 'idle' && (session.reasked.name || session.reasked.email);
}

/** Records activity on a running session; an idle one stays as it is. */
export function touch(session: CaptureSession, now: Date): CaptureSession {
  return session.state === 'idle' ? session : { ...session, lastActivityAt: now.toISOString() };
}
