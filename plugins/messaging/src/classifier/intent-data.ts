import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { BootError } from '../../../../gateway/src/plugin-api.ts';
import { INTENTS } from './types.ts';

/** The shipped data file: intents, phrases and keywords are data, not code (README, "The data file"). */
export const DEFAULT_INTENT_DATA_PATH = fileURLToPath(new URL('../../data/intents.v1.json', import.meta.url));

const phrase = z.string().trim().min(1).max(200);
const weight = z
  .number()
  .min(-5)
  .max(5)
  .refine((value) => value !== 0, 'a weight of 0 does nothing; remove the keyword');

const intentSchema = z.strictObject({
  /** One line, shown to the language model (tier 3) and in the README. */
  description: z.string().trim().min(1).max(300),
  /** Tier 1: when phrases of several intents match, the highest priority wins. */
  priority: z.number().int().min(0).max(1000),
  /** Whether a negator in scope cancels (tier 1) or inverts (tier 2) this intent's evidence. */
  negatable: z.boolean(),
  /** Tier 1: phrases that decide the intent wherever they occur in the message. */
  phrases: z.array(phrase),
  /** Tier 1: phrases that decide only when the whole message is made of such phrases ("halo kak", "oke makasih"). */
  alonePhrases: z.array(phrase),
  /** Tier 2: keyword (one or more tokens) → weight. */
  keywords: z.record(phrase, weight),
});

const word = z.string().trim().min(1).max(60);

export const intentDataSchema = z.strictObject({
  version: z.literal(1),
  about: z.string().optional(),
  thresholds: z.strictObject({
    /** Tier 2 answers only when the best score (1 - e^-sum) reaches this. */
    tier2MinScore: z.number().gt(0).lt(1),
    /** ... and leads the second best by at least this much. */
    tier2MinMargin: z.number().min(0).lt(1),
    /** Tier 3 answers only when the model's confidence reaches this. */
    modelMinConfidence: z.number().min(0).max(1),
  }),
  normalisation: z.strictObject({
    /** Emoji and other symbols replaced by words before punctuation is stripped. */
    symbols: z.record(z.string().min(1).max(16), z.string()),
    /** Tokens dropped everywhere: forms of address ("kak", "min") and chat particles ("dong", "ya"). */
    fillers: z.array(word),
    /** One token → zero or more tokens: chat abbreviations and spelling variants ("sy" → "saya"). */
    rewrites: z.record(word, z.string().max(60)),
    /** Two tokens (after `rewrites`) → zero or more tokens ("no hp" → "nomor hp"). */
    bigramRewrites: z.record(word, z.string().max(60)),
    /** Suffixes stripped from a token that is not in the data's vocabulary when what remains is ("biayanya"). */
    suffixes: z.array(word),
    /** One-edit typo repair toward vocabulary words of at least `minWordLength` characters. */
    typo: z.strictObject({
      minWordLength: z.number().int().min(4).max(30),
      minTokenLength: z.number().int().min(3).max(30),
      /** Real words one edit away from a vocabulary word, never "repaired" ("urusan" is not "jurusan"). */
      protected: z.array(word),
    }),
  }),
  negation: z.strictObject({
    negators: z.array(word).min(1),
    /** A negator covers this many tokens after it (and, in tier 1, before it), within one clause. */
    window: z.number().int().min(1).max(10),
    /** Tokens that end a negator's scope ("tapi", "but", "tahu": "tidak tahu cara daftar" is a request). */
    breakers: z.array(word),
    /** Tier 2: a negated keyword of a negatable intent counts its weight times this (≤ 0). */
    negatedFactor: z.number().min(-2).max(0),
    /**
     * Negators that, after a phrase, ask rather than negate ("bisa datang ke kampus gak?"); tier 1 ignores
     * them there. Each must be a negator.
     */
    questionTags: z.array(word),
  }),
  intents: z.record(z.enum(INTENTS), intentSchema),
});

export type IntentData = z.infer<typeof intentDataSchema>;
export type IntentDefinition = IntentData['intents'][keyof IntentData['intents']];

/**
 * Validates intent data (already parsed from JSON). Throws a BootError naming `source` and every problem, so
 * a bad file stops the gateway at boot, never a request (ADR 0001: a broken deployment stops at boot). Checks
 * that need the normaliser (phrases in normal form, duplicates) run when the data is compiled
 * (`compileIntentData`).
 */
export function parseIntentData(raw: unknown, source: string): IntentData {
  const parsed = intentDataSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw new BootError(
    parsed.error.issues.map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      return `${source}: ${where}: ${issue.message}`;
    }),
  );
}

/** Reads and validates the intent data file; a missing file or invalid JSON is a BootError too. */
export function loadIntentData(path: string = DEFAULT_INTENT_DATA_PATH): IntentData {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new BootError([`${path}: cannot read the intent data file (${(err as Error).message})`]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BootError([`${path}: not valid JSON (${(err as Error).message})`]);
  }
  return parseIntentData(raw, path);
}
