import type { Classification, Intent, Tier } from '../../plugins/messaging/src/classifier/types.ts';
import { idleSession } from '../../plugins/messaging/src/conversation/capture/session.ts';
import type { ConversationEngine } from '../../plugins/messaging/src/conversation/engine.ts';
import type {
  CaptureSession,
  ConversationOutput,
  Language,
  LeadFields,
} from '../../plugins/messaging/src/conversation/types.ts';

/** A classification as the classifier would hand it over (the engine does not classify). */
export function classified(intent: Intent, tier: Tier = 1): Classification {
  return { intent, tier, score: tier === 4 ? 0 : 1, margin: null, evidence: null };
}

export interface Turn {
  output: ConversationOutput;
  templates: string[];
  /** The replies rendered in the output's language. */
  texts: string[];
}

/**
 * Plays a conversation against the engine the way the infrastructure does: it carries the session, the
 * lead (merging each `leadPatch`), the language and the default-answer streak from one message to the next,
 * and owns the clock (moved with `advance`, never slept on).
 */
export function conversationDriver(
  engine: ConversationEngine,
  options: { senderPhone?: string | null; lead?: LeadFields; session?: CaptureSession; start?: Date } = {},
) {
  let session = options.session ?? idleSession();
  let lead: LeadFields = { ...options.lead };
  let language: Language | undefined;
  let defaultAnswersInARow = 0;
  let now = options.start ?? new Date('2025-01-06T02:00:00.000Z');

  return {
    get session() {
      return session;
    },
    get lead() {
      return lead;
    },
    get now() {
      return now;
    },
    advance(ms: number) {
      now = new Date(now.getTime() + ms);
    },
    async say(
      text: string | null,
      intent: Intent,
      extra: { tier?: Tier; messageType?: string } = {},
    ): Promise<Turn> {
      const classification = classified(intent, extra.tier ?? (intent === 'generalInfo' ? 4 : 1));
      const output = await engine.step({
        text,
        messageType: extra.messageType ?? 'text',
        classification,
        session,
        lead,
        senderPhone: options.senderPhone ?? null,
        defaultAnswersInARow,
        now,
        ...(language ? { language } : {}),
      });
      session = output.session;
      lead = { ...lead, ...output.leadPatch };
      language = output.language;
      defaultAnswersInARow = classification.tier === 4 ? defaultAnswersInARow + 1 : 0;
      return {
        output,
        templates: output.replies.map((reply) => reply.template),
        texts: output.replies.map((reply) => engine.render(reply, output.language)),
      };
    },
  };
}
