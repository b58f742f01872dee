import { BOUNDARY, type Normaliser } from '../classifier/normalise.ts';

/** The longest group key kept: a key is a message's normal form, and a group is named by it. */
export const GAP_KEY_MAX_CHARS = 500;

/**
 * The gap grouping key of a message (README, "Knowledge base", "Gaps"): the classifier's normal form (lower
 * case, fillers dropped, slang rewritten, suffixes stripped, typos repaired), clause boundaries dropped, words
 * joined by one space. "Biayanya brp kak??" and "biaya berapa" share a key. Null when nothing is left (an emoji
 * the data does not map, only fillers): such a message names no topic a document could answer.
 */
export function gapKey(normalise: Normaliser, text: string): string | null {
  const key = normalise(text)
    .filter((token) => token !== BOUNDARY)
    .join(' ')
    .slice(0, GAP_KEY_MAX_CHARS)
    .trim();
  return key === '' ? null : key;
}

/** The ISO 8601 week of an instant in UTC, as `2026-W07` (weeks start on Monday; week 1 holds January 4th). */
export function isoWeek(at: Date): string {
  const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  const weekday = day.getUTCDay() === 0 ? 7 : day.getUTCDay();
  // The Thursday of this week decides the year the week belongs to.
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}
