/**
 * The intent classifier's contract (plugins/messaging/README.md, "Intent classification"). Four tiers, in
 * order: (1) a deterministic whitelist of phrases, (2) keyword and heuristic scoring with a confidence
 * threshold and a top-two margin, (3) a language model, (4) the default `generalInfo`. Intents, phrases and
 * keywords are data (plugins/messaging/data/intents.v1.json), not code.
 */

/** The intents the admissions bot knows. Adding one is a data change plus a handler. */
export const INTENTS = [
  'greeting',
  'wantRegister',
  'wantVisitCampus',
  'sharePersonalInfo',
  'askHuman',
  'askFees',
  'askPrograms',
  'askSchedule',
  'askLocation',
  'thanks',
  'generalInfo',
] as const;
export type Intent = (typeof INTENTS)[number];

export type Tier = 1 | 2 | 3 | 4;

/** What the classifier decided, stored with each message (tier, intent, score, margin). */
export interface Classification {
  intent: Intent;
  tier: Tier;
  /** Tier 1: 1. Tier 2: the winning score (0-1). Tier 3: the model's confidence. Tier 4: 0. */
  score: number;
  /** Tier 2: best minus second-best score; null for the other tiers. */
  margin: number | null;
  /** Tier 1: the whitelist phrase that matched; tier 3: the model name; else null. */
  evidence: string | null;
}

/**
 * Why a tier fell through (for the per-tier metrics and logs). `no_text`: the message has no text, or none
 * left after normalisation (an image, a sticker, emoji only); tiers 1–3 are skipped and tier 4 answers.
 */
export type FallThrough =
  | 'no_match'
  | 'low_score'
  | 'low_margin'
  | 'negated'
  | 'disabled'
  | 'timeout'
  | 'invalid'
  | 'error'
  | 'no_text';
