import type { Intent } from '../../classifier/types.ts';
import * as answers from '../handlers/answers.ts';
import type { Handler, HandlerContext, HandlerOutcome } from '../handlers/types.ts';
import { reply } from '../replies/templates.ts';
import type { CaptureSession, Reply } from '../types.ts';
import { awaitedSlot, idleSession, isPaused, missingSlot, type Slot } from './session.ts';

/** Questions answered before the capture prompt when a message asks one and gives data ("nama saya Budi, biayanya berapa?"). */
const SIDE_ANSWERS: Partial<Record<Intent, Handler>> = {
  askFees: answers.askFees,
  askPrograms: answers.askPrograms,
  askSchedule: answers.askSchedule,
  askLocation: answers.askLocation,
  wantVisitCampus: answers.wantVisitCampus,
};

/**
 * Lead capture (awaiting_name → awaiting_email → captured; plugins/messaging/README.md, "The capture state
 * machine"), run by the `wantRegister` and `sharePersonalInfo` handlers.
 *
 * - The next state follows from what the lead lacks after this message: the name, then the email. Slots
 *   come in any order and a known slot is never asked again (the lead, not the session, says what is known).
 * - The lead becoming complete (it lacked a name or an email before this message) is the escalation
 *   `lead_captured`; a complete lead that registers again is told so, without a new escalation.
 * - A message that answers a prompt with nothing usable is re-asked once per slot (`reasked`); the second
 *   time the bot pauses capture (idle, marks kept) and answers normally, so it never loops.
 */
export function runCapture(
  context: HandlerContext,
  trigger: 'wantRegister' | 'sharePersonalInfo',
): HandlerOutcome {
  const { session, extraction } = context;
  const gave = extraction.fields;
  const gaveAny = gave.name !== undefined || gave.email !== undefined || gave.phone !== undefined;
  const awaiting = awaitedSlot(session);

  if (!gaveAny && trigger === 'sharePersonalInfo') {
    if (awaiting) return answerFailed(context, awaiting);
    // After a pause only "saya mau daftar" or real data restarts capture.
    if (isPaused(session)) return { ...answers.generalInfo(context), intent: 'sharePersonalInfo' };
  }

  const side = gaveAny ? SIDE_ANSWERS[context.input.classification.intent]?.(context) : undefined;
  const outcome = advance(context, trigger);
  return {
    ...outcome,
    replies: [...(side?.replies ?? []), ...outcome.replies],
    ...(side?.notifyAdmin ? { notifyAdmin: side.notifyAdmin } : {}),
  };
}

function advance(context: HandlerContext, trigger: 'wantRegister' | 'sharePersonalInfo'): HandlerOutcome {
  const { session, extraction, lead, patch, known, now } = context;
  const at = now.toISOString();
  const fresh = session.state === 'idle' || session.state === 'captured';
  const base: Omit<CaptureSession, 'state'> = fresh
    ? { startedAt: at, lastActivityAt: at, reasked: idleSession().reasked }
    : { startedAt: session.startedAt ?? at, lastActivityAt: at, reasked: session.reasked };
  const missing = missingSlot(known);

  if (missing === null) {
    const name = known.name ?? '';
    const email = known.email ?? '';
    // A captured session keeps its start; a complete lead registering again starts nothing new.
    const next: CaptureSession = { ...base, state: 'captured', startedAt: session.startedAt ?? at };
    if (missingSlot(lead) !== null) {
      return {
        intent: trigger,
        replies: [reply('lead_captured', { name, email })],
        session: next,
        // Stable per lead: the lead becomes captured once (the infrastructure adds the conversation id).
        escalation: { reason: 'lead_captured', eventKey: 'lead_captured' },
        capturing: true,
      };
    }
    const changed = Object.keys(patch).length > 0;
    return {
      intent: trigger,
      replies: [reply(changed ? 'lead_updated' : 'already_registered', { name, email })],
      session: next,
      capturing: true,
    };
  }

  return {
    intent: trigger,
    replies: [
      prompt(
        missing,
        { email: extraction.fields.email !== undefined, name: patch.name !== undefined },
        known.name ?? '',
      ),
    ],
    session: { ...base, state: missing === 'name' ? 'awaiting_name' : 'awaiting_email' },
    capturing: true,
  };
}

/** Asks for the missing slot, thanking for what this message gave. */
function prompt(missing: Slot, gave: Record<Slot, boolean>, name: string): Reply {
  if (missing === 'name') return reply(gave.email ? 'ask_name_after_email' : 'ask_name');
  return reply(gave.name ? 'ask_email_after_name' : 'ask_email', { name });
}

/** The prompt's answer held nothing usable: re-ask once, then pause and answer normally. */
function answerFailed(context: HandlerContext, slot: Slot): HandlerOutcome {
  const { session, now } = context;
  const at = now.toISOString();
  if (!session.reasked[slot]) {
    return {
      intent: 'sharePersonalInfo',
      replies: [reply(slot === 'name' ? 'reask_name' : 'reask_email')],
      session: { ...session, lastActivityAt: at, reasked: { ...session.reasked, [slot]: true } },
      capturing: true,
    };
  }
  const paused: CaptureSession = {
    state: 'idle',
    startedAt: null,
    lastActivityAt: at,
    reasked: session.reasked,
  };
  const normal = answers.generalInfo({ ...context, session: paused });
  return { ...normal, replies: [reply('capture_paused'), ...normal.replies], session: paused };
}
