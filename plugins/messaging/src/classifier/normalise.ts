import { ruleText } from '../domain/text.ts';
import type { IntentData } from './intent-data.ts';

/** A clause boundary (sentence punctuation, a line break). Negation scope and phrases never cross one. */
export const BOUNDARY = '|';
/** Placeholder tokens for what was an email address or an Indonesian mobile number; keywords may name them. */
export const EMAIL_TOKEN = '<email>';
export const PHONE_TOKEN = '<phone>';

export type NormalisationRules = IntentData['normalisation'];

/** Turns a message into tokens, with BOUNDARY between clauses (never first, last or doubled). */
export type Normaliser = (text: string) => string[];

// Compiled once: the normaliser runs on every message (bench target ≥ 50,000 messages/s).
// An email address is a maximal run of EMAIL_LOCAL characters, an `@`, then EMAIL_DOMAIN (see `markEmails`).
const EMAIL_LOCAL = /[\p{L}\p{N}._%+-]+/gu;
const EMAIL_DOMAIN = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/uy;
// 08…, 628…, +62 8…, with spaces, dots or dashes between digit groups: the ways an Indonesian mobile number
// is written (README, "Extraction").
const PHONE = /(?<![\d+])(?:\+?62[\s.-]?|0)8(?:[\s.-]?\d){7,12}(?!\d)/g;
const DIGIT = /\d/;
const APOSTROPHE = /['’‘`´]/g;
const CLAUSE_PUNCTUATION = /[.,!?;:|\n\r\u2026]+/g;
const NOT_A_WORD = /[^\p{L}\p{M}\p{N}\s|\uE000\uE001]+/gu;
const ELONGATION = /(\p{L})\1{2,}/gu;
const WHITESPACE = /\s+/;
const REDUPLICATION = /^(\p{L}{2,})2$/u;
// Private-use characters: nobody types them, and they survive until the token loop turns them into placeholders.
const EMAIL_MARK = '\uE000';
const PHONE_MARK = '\uE001';

/** Longest first, so "fees" tries "es" before "s". */
export function sortSuffixes(suffixes: readonly string[]): string[] {
  return [...suffixes].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces each email address with `mark`, as `/[local]+@[domain]/g` would find them, in linear time:
 * only the runs of local-part characters are searched for, and a run is followed further only when an `@`
 * ends it. (The single expression re-reads a long run from every start position when no `@` follows.)
 */
export function markEmails(text: string, mark = EMAIL_MARK): string {
  let out = '';
  let copied = 0;
  EMAIL_LOCAL.lastIndex = 0;
  for (let run = EMAIL_LOCAL.exec(text); run !== null; run = EMAIL_LOCAL.exec(text)) {
    const at = run.index + run[0].length;
    if (text.charCodeAt(at) !== 0x40) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.exec(text) === null) continue;
    out += `${text.slice(copied, run.index)} ${mark} `;
    copied = EMAIL_DOMAIN.lastIndex;
    EMAIL_LOCAL.lastIndex = copied;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function splitWords(text: string): string[] {
  const trimmed = text.trim();
  return trimmed === '' ? [] : trimmed.split(WHITESPACE);
}

/**
 * The first, vocabulary-free steps (README, "The data file", normalisation): lower case, NFKC, symbols to
 * words, emails and phone numbers to placeholders, apostrophes dropped ("don't" → "dont"), clause punctuation
 * to BOUNDARY, other punctuation to spaces, letters repeated three times or more collapsed ("haiii" → "hai"),
 * "kira2" → "kira kira". Returns raw words, BOUNDARY included.
 */
function createWordSplitter(rules: NormalisationRules): (text: string) => string[] {
  const symbolKeys = Object.keys(rules.symbols).map((key) => key.normalize('NFKC').toLowerCase());
  const symbolMap = new Map(
    Object.entries(rules.symbols).map(([key, value]) => [key.normalize('NFKC').toLowerCase(), value]),
  );
  const symbols =
    symbolKeys.length > 0
      ? new RegExp(
          symbolKeys
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join('|'),
          'gu',
        )
      : null;
  return (text) => {
    // Cut again after NFKC, which can make a character up to 18 long (U+FDFA).
    let s = ruleText(ruleText(text).normalize('NFKC').toLowerCase());
    if (symbols) s = s.replace(symbols, (symbol) => ` ${symbolMap.get(symbol) ?? ''} `);
    if (s.includes('@')) s = markEmails(s);
    if (DIGIT.test(s)) s = s.replace(PHONE, ` ${PHONE_MARK} `);
    s = s
      .replace(APOSTROPHE, '')
      .replace(CLAUSE_PUNCTUATION, ` ${BOUNDARY} `)
      .replace(NOT_A_WORD, ' ')
      .replace(ELONGATION, '$1');
    return splitWords(s);
  };
}

/**
 * Builds the normaliser. Without a vocabulary (used to check the data's own normal form) it does everything
 * but suffix stripping and typo repair; with the compiled data's vocabulary it does those too:
 *  - a token loses a suffix ("biayanya" → "biaya", "fees" → "fee") when what remains is in the vocabulary;
 *  - else a token not in the vocabulary, of `typo.minTokenLength`+ characters, one edit (delete, insert,
 *    replace, swap) away from exactly one vocabulary word of `typo.minWordLength`+ characters becomes that
 *    word ("pendaftran" → "pendaftaran"), unless it is `protected` (a real word: "urusan" is not a typo of
 *    "jurusan").
 */
export function createNormaliser(rules: NormalisationRules, vocabulary?: ReadonlySet<string>): Normaliser {
  const split = createWordSplitter(rules);
  const fillers = new Set(rules.fillers);
  const rewrites = new Map(Object.entries(rules.rewrites).map(([from, to]) => [from, splitWords(to)]));
  const bigrams = new Map<string, Map<string, string[]>>();
  for (const [from, to] of Object.entries(rules.bigramRewrites)) {
    const [first, second] = splitWords(from);
    if (first === undefined || second === undefined) continue; // rejected by compileIntentData
    let inner = bigrams.get(first);
    if (!inner) bigrams.set(first, (inner = new Map<string, string[]>()));
    inner.set(second, splitWords(to));
  }
  const suffixes = sortSuffixes(rules.suffixes);
  const protectedWords = new Set(rules.typo.protected);
  const { minTokenLength } = rules.typo;
  const deletions = vocabulary ? buildDeletionIndex(vocabulary, rules.typo.minWordLength) : null;
  // A token one insertion longer than the longest word cannot be one edit from any word; repairing it
  // would only cost time (each candidate deletion copies the token: quadratic in its length).
  let longestTypo = 0;
  for (const word of vocabulary ?? []) longestTypo = Math.max(longestTypo, word.length + 1);

  /** Suffix stripping and typo repair toward the vocabulary. */
  function toVocabulary(token: string): string {
    if (!vocabulary || !deletions) return token;
    const stem = stripSuffix(token, suffixes, vocabulary);
    if (stem !== null) return stem;
    if (vocabulary.has(token)) return token;
    if (token.length < minTokenLength || token.length > longestTypo) return token;
    if (protectedWords.has(token) || DIGIT.test(token)) return token;
    return repairTypo(token, deletions) ?? token;
  }

  function pushWord(out: string[], word: string): void {
    if (fillers.has(word)) return;
    const rewritten = rewrites.get(word);
    if (rewritten) {
      for (const token of rewritten) if (!fillers.has(token)) out.push(toVocabulary(token));
      return;
    }
    out.push(toVocabulary(word));
  }

  return (text) => {
    const words = split(text);
    const tokens: string[] = [];
    for (const word of words) {
      if (word === BOUNDARY) {
        if (tokens.length > 0 && tokens[tokens.length - 1] !== BOUNDARY) tokens.push(BOUNDARY);
      } else if (word === EMAIL_MARK) tokens.push(EMAIL_TOKEN);
      else if (word === PHONE_MARK) tokens.push(PHONE_TOKEN);
      else if (word.endsWith('2') && REDUPLICATION.test(word)) {
        const base = word.slice(0, -1);
        pushWord(tokens, base);
        pushWord(tokens, base);
      } else pushWord(tokens, word);
    }
    if (tokens[tokens.length - 1] === BOUNDARY) tokens.pop();
    return bigrams.size > 0 ? applyBigrams(tokens, bigrams) : tokens;
  };
}

/**
 * The stem of `token` when it ends in one of `suffixes` and what remains (3+ characters) is in the vocabulary,
 * else null. Applied even to vocabulary words, so the data and the messages meet on the stem ("thanks" → "thank").
 */
export function stripSuffix(
  token: string,
  suffixes: readonly string[],
  vocabulary: ReadonlySet<string>,
): string | null {
  for (const suffix of suffixes) {
    if (token.length - suffix.length >= 3 && token.endsWith(suffix)) {
      const stem = token.slice(0, -suffix.length);
      if (vocabulary.has(stem)) return stem;
    }
  }
  return null;
}

function applyBigrams(
  tokens: string[],
  bigrams: ReadonlyMap<string, ReadonlyMap<string, string[]>>,
): string[] {
  let out: string[] | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string;
    const next = tokens[i + 1];
    const replacement = next === undefined ? undefined : bigrams.get(token)?.get(next);
    if (replacement) {
      out ??= tokens.slice(0, i);
      out.push(...replacement);
      i++;
    } else if (out) out.push(token);
  }
  return out ?? tokens;
}

/** Deletion neighbourhood (SymSpell, distance 1): each one-character deletion → its word, or null when two words share it. */
function buildDeletionIndex(
  vocabulary: ReadonlySet<string>,
  minWordLength: number,
): Map<string, string | null> {
  const index = new Map<string, string | null>();
  const add = (key: string, word: string): void => {
    const existing = index.get(key);
    if (existing === undefined) index.set(key, word);
    else if (existing !== word) index.set(key, null);
  };
  for (const word of vocabulary) {
    if (word.length < minWordLength || word.startsWith('<')) continue;
    add(word, word);
    for (let i = 0; i < word.length; i++) add(word.slice(0, i) + word.slice(i + 1), word);
  }
  return index;
}

function repairTypo(token: string, deletions: ReadonlyMap<string, string | null>): string | null {
  // A letter missing from the token: the token is a deletion of a word.
  const missing = deletions.get(token);
  let found: string | null = missing ?? null;
  if (missing === null) return null;
  for (let i = 0; i < token.length; i++) {
    const deleted = token.slice(0, i) + token.slice(i + 1);
    // An extra letter (the deletion is a word, indexed as itself) or a replaced or swapped one (both share a deletion).
    const candidate = deletions.get(deleted);
    if (candidate === undefined) continue;
    if (candidate === null) return null;
    if (found !== null && found !== candidate) return null;
    found = candidate;
  }
  return found;
}
