import { trimEndChars } from '../../domain/text.ts';
import { BARE_NAME_FILLERS, HONORIFICS, NOT_NAME_WORDS } from './words.ts';

/** How a name was found; an existing name is only replaced by an explicit phrase ("nama saya ..."). */
export type NameSource = 'phrase' | 'loose' | 'bare' | 'model';

export interface NameMatch {
  name: string;
  source: NameSource;
}

const MAX_WORDS = 5;
const MAX_WORD_LENGTH = 30;
const MAX_NAME_LENGTH = 80;

/** A name word: letters (any script), with inner apostrophes and hyphens (O'Neil, Siti-Nur). */
const NAME_WORD = /^\p{L}[\p{L}\p{M}'’-]*$/u;
/** Tokens: a word with an optional trailing dot (an initial "M.", or a sentence end), or one other character. */
const TOKEN = /\p{L}[\p{L}\p{M}'’-]*\.?|\S/gu;

/** "hahaha", "hehe", "wkwkwk": chat laughter, never a name. */
const LAUGHTER = /^(?:(?:h[aeiou]){2,}h?|(?:wk){2,}w?)$/;

/**
 * Phrases after which a name follows, explicitly: "nama saya X", "namaku X", "Nama: X", "saya bernama X",
 * "panggil saja X", "biasa dipanggil X", "my name is X", "call me X". Each starts where no letter or digit
 * precedes (so "anak saya" does not start "saya ..."). Literals, so the linter checks that each is linear.
 */
const EXPLICIT_PHRASES: readonly RegExp[] = [
  /(?<![\p{L}\p{N}])nama\s+(?:lengkap\s+)?(?:saya|aku|gue|gua|ku)(?:\s+(?:adalah|ialah|yaitu))?\s*[:=-]?/giu,
  /(?<![\p{L}\p{N}])namaku(?:\s+(?:adalah|ialah))?\s*[:=-]?/giu,
  /(?<![\p{L}\p{N}])nama(?:\s+lengkap)?\s*[:=]/giu,
  /(?<![\p{L}\p{N}])(?:saya|aku)\s+bernama\s/giu,
  /(?<![\p{L}\p{N}])(?:di)?panggil(?:\s+(?:saja|aja))?(?:\s+(?:saya|aku))?(?:\s+(?:dengan|sebagai))?\s/giu,
  /(?<![\p{L}\p{N}])my\s+(?:full\s+)?name(?:\s+is|'s|’s)\s*[:=-]?/giu,
  /(?<![\p{L}\p{N}])(?:full\s+)?name\s*[:=]/giu,
  /(?<![\p{L}\p{N}])call\s+me\s/giu,
];

/**
 * Loose phrases: "saya X", "aku X", "I'm X", "I am X", "this is X", only at the start of a clause (the
 * start of the text, after sentence punctuation, or after an opener such as "halo", "perkenalkan", "kak"),
 * so that "anak saya Budi" (my child Budi) or "email saya ..." give nothing.
 */
const LOOSE_PHRASES: readonly RegExp[] = [
  /(?:^|[,.!?;:]\s*|(?<![\p{L}\p{N}])(?:halo|hallo|hai|hi|hello|hey|pagi|siang|sore|malam|permisi|perkenalkan|kenalkan|kenalin|kak|min|admin|ya|iya|ok|oke)\s+)(?:saya|aku)(?:\s+(?:adalah|ialah))?\s/giu,
  /(?:^|[,.!?;:]\s*|(?<![\p{L}\p{N}])(?:halo|hallo|hai|hi|hello|hey|pagi|siang|sore|malam|permisi|perkenalkan|kenalkan|kenalin|kak|min|admin|ya|iya|ok|oke)\s+)(?:i'm|i’m|im|i\s+am|this\s+is|it's|it’s)\s/giu,
];

/**
 * Tokens `nameAt` reads after a phrase at most: a few titles ("Bapak Dr."), the longest name, and one more
 * word to see that the name is too long. Reading a bounded number keeps the extractor linear when a
 * message repeats a phrase thousands of times.
 */
const MAX_NAME_TOKENS = MAX_WORDS + 7;

/**
 * Finds the sender's own name in a message, from the Indonesian and English phrases people introduce
 * themselves with (README, "Extraction"), title-cased, or null.
 *
 * - Explicit phrases ("nama saya X", "my name is X") take the words after them up to the end of the clause
 *   or the first word that cannot be part of a name: "nama saya belum terdaftar" gives nothing.
 * - Loose phrases ("saya X", "I'm X") at the start of a clause need X to be capitalised as typed, unless the
 *   bot has just asked for the name (`expectName`): "saya tertarik" is no name, "saya Budi" is.
 * - With `expectName`, a bare reply ("Budi Santoso", "budi santoso, budi@example.com") is the name when all
 *   of it reads as one: 1 to 5 words, letters only, none of them a common word.
 *
 * `text` should have emails and phone numbers already replaced by a clause break (see `scanEmails`).
 */
export function extractName(text: string, options: { expectName: boolean }): NameMatch | null {
  const normalised = text.trim().replace(/[\r\n]+/g, ' , ');
  for (const phrase of EXPLICIT_PHRASES) {
    for (const match of normalised.matchAll(phrase)) {
      const name = nameAt(normalised, match.index + match[0].length, { requireCapital: false });
      if (name) return { name, source: 'phrase' };
    }
  }
  for (const phrase of LOOSE_PHRASES) {
    for (const match of normalised.matchAll(phrase)) {
      const name = nameAt(normalised, match.index + match[0].length, {
        requireCapital: !options.expectName,
      });
      if (name) return { name, source: 'loose' };
    }
  }
  if (options.expectName) {
    const name = bareName(normalised);
    if (name) return { name, source: 'bare' };
  }
  return null;
}

/**
 * Whether a string, as a whole, reads as a person's name (the model's answers are checked with it).
 * Returns the title-cased name or null.
 */
export function asName(raw: string): string | null {
  const words = trimEndChars(raw.trim(), '.,;:!?')
    .split(/\s+/)
    .filter((word) => word.length > 0);
  const kept = dropHonorifics(words);
  if (!kept || kept.some((word) => !isNameWord(word))) return null;
  return finish(kept);
}

/** The name that starts at `from` in `text` (after a phrase), or null. */
function nameAt(text: string, from: number, options: { requireCapital: boolean }): string | null {
  const words: string[] = [];
  TOKEN.lastIndex = from;
  for (let read = 0; read < MAX_NAME_TOKENS; read++) {
    const match = TOKEN.exec(text);
    if (match === null) break;
    const token = match[0];
    const isWord = /^\p{L}/u.test(token);
    if (!isWord) break;
    const endsSentence = token.endsWith('.');
    const word = endsSentence ? token.slice(0, -1) : token;
    const isInitial = endsSentence && word.length === 1;
    if (words.length === 0 && HONORIFICS.has(word.toLowerCase())) continue;
    if (!isInitial && !isNameWord(word)) break;
    words.push(isInitial ? `${word}.` : word);
    if (words.length > MAX_WORDS) return null;
    if (endsSentence && !isInitial) break;
  }
  const first = words[0];
  if (!first) return null;
  if (options.requireCapital && first[0] !== first[0]?.toUpperCase()) return null;
  return finish(words);
}

/** A reply that is nothing but a name (after removing "email", "no hp", "dan" and punctuation). */
function bareName(text: string): string | null {
  const words: string[] = [];
  for (const token of text.match(TOKEN) ?? []) {
    if (!/^\p{L}/u.test(token)) {
      // Anything but punctuation (digits, symbols, emoji) means the reply is more than a name.
      if (!/^[,.;:!?()\u2013\u2014-]$/u.test(token)) return null;
      continue;
    }
    const isInitial = /^\p{L}\.$/u.test(token);
    const word = isInitial ? token : token.replace(/\.$/u, '');
    if (BARE_NAME_FILLERS.has(word.toLowerCase())) continue;
    if (!isInitial && !isNameWord(word)) return null;
    words.push(word);
  }
  const kept = dropHonorifics(words);
  return kept ? finish(kept) : null;
}

function dropHonorifics(words: string[]): string[] | null {
  let start = 0;
  while (start < words.length - 1 && HONORIFICS.has((words[start] ?? '').toLowerCase().replace(/\.$/u, ''))) {
    start++;
  }
  const kept = words.slice(start);
  return kept.length > 0 ? kept : null;
}

function isNameWord(word: string): boolean {
  if (word.length > MAX_WORD_LENGTH || !NAME_WORD.test(word)) return false;
  const lower = word.toLowerCase();
  // "biayanya", "emailnya", "jadwalnya": a common word with the suffix -nya is no name either.
  if (LAUGHTER.test(lower)) return false;
  return !NOT_NAME_WORDS.has(lower) && !(lower.endsWith('nya') && NOT_NAME_WORDS.has(lower.slice(0, -3)));
}

/** Checks the whole, then title-cases words typed all lower or all upper case (mixed case is kept). */
function finish(words: string[]): string | null {
  if (words.length === 0 || words.length > MAX_WORDS) return null;
  if (words.every((word) => word.replace(/\.$/u, '').length === 1)) return null;
  if (words.length === 1 && HONORIFICS.has((words[0] ?? '').toLowerCase())) return null;
  const name = words.map(titleCase).join(' ');
  return name.length <= MAX_NAME_LENGTH ? name : null;
}

function titleCase(word: string): string {
  // "McDonald", "DeWitt": typed with care, kept. "budi", "BUDI", "bUDI": title-cased.
  const first = word[0] ?? '';
  const careful = first === first.toUpperCase() && word !== word.toUpperCase();
  if (careful) return word;
  return word
    .toLowerCase()
    .replace(
      /(^|[-'’])(\p{L})/gu,
      (_match, separator: string, letter: string) => separator + letter.toUpperCase(),
    );
}
