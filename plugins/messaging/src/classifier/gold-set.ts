import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { INTENTS, type Intent } from './types.ts';

/** Labelled utterances, one `{"text", "intent", "lang"}` per line (README, "Gold set and thresholds"). */
export const GOLD_SET_PATH = fileURLToPath(new URL('../../data/gold-set.v1.jsonl', import.meta.url));

const goldLine = z.strictObject({
  text: z.string().min(1),
  intent: z.enum(INTENTS),
  lang: z.enum(['id', 'en']),
});

export interface GoldItem extends z.infer<typeof goldLine> {
  /** In the held-out fifth, which the data file's phrases and keywords were not tuned on. */
  heldOut: boolean;
}

/**
 * The held-out split: FNV-1a (32-bit) of the text, modulo 5, equal to 0. Derived from the text, so the
 * file needs no split column and an utterance cannot drift between parts when lines move.
 */
export function isHeldOut(text: string): boolean {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % 5 === 0;
}

/**
 * One gold-set line, spelled as the data file spells its lines (`{"text": …, "intent": …, "lang": …}`), so
 * lines exported from staff feedback can be appended to it as they are (README, "Feedback").
 */
export function formatGoldLine(item: { text: string; intent: string; lang: string }): string {
  const field = (value: string) => JSON.stringify(value);
  return `{"text": ${field(item.text)}, "intent": ${field(item.intent)}, "lang": ${field(item.lang)}}`;
}

/** Reads and validates the gold set; a bad line throws with its number. */
export function loadGoldSet(path: string = GOLD_SET_PATH): GoldItem[] {
  const items: GoldItem[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new Error(`${path}:${index + 1}: not valid JSON (${(err as Error).message})`, { cause: err });
      }
      const parsed = goldLine.safeParse(raw);
      if (!parsed.success)
        throw new Error(`${path}:${index + 1}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      items.push({ ...parsed.data, heldOut: isHeldOut(parsed.data.text) });
    });
  return items;
}

export interface IntentScore {
  intent: Intent;
  /** Gold utterances with this intent. */
  support: number;
  /** Utterances the classifier gave this intent (fall-throughs give none). */
  predicted: number;
  correct: number;
  /** correct / predicted; null when nothing was predicted. */
  precision: number | null;
  /** correct / support (a fall-through is a miss); null when there is no support. */
  recall: number | null;
}

export interface Scores {
  perIntent: IntentScore[];
  total: number;
  predicted: number;
  correct: number;
  /** Predictions over utterances. */
  coverage: number;
  /** Correct over predictions. */
  microPrecision: number;
  /** Correct over utterances. */
  microRecall: number;
  /** Mean precision over intents with predictions. */
  macroPrecision: number;
  /** Mean recall over intents with support. */
  macroRecall: number;
}

const ratio = (a: number, b: number): number | null => (b === 0 ? null : a / b);
const mean = (values: Array<number | null>): number => {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? 0 : present.reduce((sum, v) => sum + v, 0) / present.length;
};

/** Per-intent precision and recall, where `predicted: null` is a fall-through (no prediction). */
export function scorePredictions(results: ReadonlyArray<{ gold: Intent; predicted: Intent | null }>): Scores {
  const perIntent = INTENTS.map((intent) => {
    const support = results.filter((r) => r.gold === intent).length;
    const predicted = results.filter((r) => r.predicted === intent).length;
    const correct = results.filter((r) => r.gold === intent && r.predicted === intent).length;
    return {
      intent,
      support,
      predicted,
      correct,
      precision: ratio(correct, predicted),
      recall: ratio(correct, support),
    };
  });
  const predicted = results.filter((r) => r.predicted !== null).length;
  const correct = results.filter((r) => r.predicted === r.gold).length;
  return {
    perIntent,
    total: results.length,
    predicted,
    correct,
    coverage: ratio(predicted, results.length) ?? 0,
    microPrecision: ratio(correct, predicted) ?? 0,
    microRecall: ratio(correct, results.length) ?? 0,
    macroPrecision: mean(perIntent.map((s) => s.precision)),
    macroRecall: mean(perIntent.map((s) => s.recall)),
  };
}

const cell = (value: number | null): string => (value === null ? '   -' : value.toFixed(2));

/** A fixed-width table for the test output. */
export function formatScores(title: string, scores: Scores): string {
  const rows = scores.perIntent.map(
    (s) =>
      `  ${s.intent.padEnd(18)} ${String(s.support).padStart(7)} ${String(s.predicted).padStart(9)} ` +
      `${String(s.correct).padStart(7)} ${cell(s.precision).padStart(9)} ${cell(s.recall).padStart(6)}`,
  );
  return [
    title,
    `  ${'intent'.padEnd(18)} ${'support'.padStart(7)} ${'predicted'.padStart(9)} ${'correct'.padStart(7)} ${'precision'.padStart(9)} ${'recall'.padStart(6)}`,
    ...rows,
    `  ${'all'.padEnd(18)} ${String(scores.total).padStart(7)} ${String(scores.predicted).padStart(9)} ${String(scores.correct).padStart(7)} ` +
      `${cell(scores.microPrecision).padStart(9)} ${cell(scores.microRecall).padStart(6)}   (micro)`,
    `  coverage ${scores.coverage.toFixed(2)}, macro precision ${scores.macroPrecision.toFixed(2)}, macro recall ${scores.macroRecall.toFixed(2)}`,
  ].join('\n');
}
