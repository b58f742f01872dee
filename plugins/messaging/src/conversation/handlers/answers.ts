import type { Intent } from '../../classifier/types.ts';
import { touch } from '../capture/session.ts';
import { reply, type PlainTemplateId } from '../replies/templates.ts';
import type { Handler, HandlerContext, HandlerOutcome } from './types.ts';

/**
 * The handlers that answer without capturing: each replies with its template and leaves a running capture
 * session waiting (a question in the middle of capture is answered; the next message may still give the
 * missing slot).
 */
function answer(intent: Intent, template: PlainTemplateId): Handler {
  return ({ session, now }) => ({ intent, replies: [reply(template)], session: touch(session, now) });
}

export const greeting = answer('greeting', 'greeting');
export const thanks = answer('thanks', 'thanks');
export const askFees = answer('askFees', 'fees');
export const askPrograms = answer('askPrograms', 'programs');
export const askSchedule = answer('askSchedule', 'schedule');
export const askLocation = answer('askLocation', 'location');

/** Escalates to staff (escalation rule `ask_human` reads the reason). */
export const askHuman: Handler = ({ session, now }) => ({
  intent: 'askHuman',
  replies: [reply('ask_human')],
  session: touch(session, now),
  escalation: { reason: 'ask_human', eventKey: 'ask_human' },
});

/** Invites the contact to visit and tells the admins someone wants to (they may arrange the visit). */
export const wantVisitCampus: Handler = ({ session, now }) => ({
  intent: 'wantVisitCampus',
  replies: [reply('visit_campus')],
  session: touch(session, now),
  notifyAdmin: { eventKey: 'visit_interest', message: 'The contact would like to visit the campus.' },
});

/**
 * The knowledge base's answer when it has one that passed its threshold (README, "Knowledge base"); else the
 * default answer. A second default answer in a row (the classifier fell to tier 4 again) admits it
 * did not understand and suggests phrasings and staff; the escalation itself is the `bot_stuck` rule's.
 */
export const generalInfo: Handler = (context: HandlerContext): HandlerOutcome => {
  const { input, session, now, knowledge } = context;
  if (knowledge?.answer)
    return {
      intent: 'generalInfo',
      replies: [reply('kb_answer', { answer: knowledge.answer })],
      session: touch(session, now),
    };
  const again = input.classification.tier === 4 && input.defaultAnswersInARow >= 1;
  return {
    intent: 'generalInfo',
    replies: [reply(again ? 'general_info_not_understood' : 'general_info')],
    session: touch(session, now),
  };
};
