import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Escalation rules are data (plugins/messaging/data/escalation-rules.v1.json; README, "How a message flows"):
 * each says when it fires and whom it notifies, the users of the conversation's cluster and/or the global
 * recipients. A rule's notification key is `<rule id>:<conversation id>`, which the database deduplicates per
 * user for 30 seconds.
 */
const RuleSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]{0,59}$/),
  description: z.string(),
  when: z
    .strictObject({
      intent: z.array(z.string()).min(1).optional(),
      handlerEscalation: z.string().min(1).optional(),
      leadBecame: z
        .array(z.enum(['incomplete', 'captured', 'qualified']))
        .min(1)
        .optional(),
      defaultAnswersInARow: z.int().min(1).optional(),
    })
    .refine((when) => Object.keys(when).length > 0, { error: 'a rule needs at least one condition' }),
  notify: z.array(z.enum(['cluster', 'global'])).min(1),
  kind: z.string().min(1).max(100),
  /**
   * The inbox status the conversation takes when the rule fires (`pending`: waiting for a person), unless an
   * agent holds it already (README, "Staff API", "Agent inbox").
   */
  conversationStatus: z.enum(['pending']).optional(),
});

const RulesFileSchema = z.strictObject({ version: z.literal(1), rules: z.array(RuleSchema) });

export type EscalationRule = z.output<typeof RuleSchema>;

/** What a processed message tells the rules. */
export interface EscalationFacts {
  intent: string;
  /** HandlerResult.escalation.reason, when the handler asked for one. */
  handlerEscalation: string | null;
  leadBefore: string | null;
  leadAfter: string | null;
  defaultAnswersInARow: number;
}

export function loadEscalationRules(
  file = new URL('../../data/escalation-rules.v1.json', import.meta.url),
): EscalationRule[] {
  const parsed = RulesFileSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) {
    throw new Error(
      `escalation rules ${String(file)}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data.rules;
}

/** The rules that fire for these facts (every condition of a rule must hold). */
export function firingRules(rules: readonly EscalationRule[], facts: EscalationFacts): EscalationRule[] {
  return rules.filter(({ when }) => {
    if (when.intent && !when.intent.includes(facts.intent)) return false;
    if (when.handlerEscalation && when.handlerEscalation !== facts.handlerEscalation) return false;
    if (when.leadBecame && !entered(when.leadBecame, facts.leadBefore, facts.leadAfter)) return false;
    if (when.defaultAnswersInARow !== undefined && facts.defaultAnswersInARow !== when.defaultAnswersInARow)
      return false;
    return true;
  });
}

/**
 * Whether the lead entered the set of statuses: in it after the message and not before. A move inside the
 * set is no news (a captured lead that gains a phone becomes qualified, and `lead_captured`, which lists
 * both, must not announce it a second time).
 */
function entered(statuses: readonly string[], before: string | null, after: string | null): boolean {
  return after !== null && statuses.includes(after) && (before === null || !statuses.includes(before));
}
