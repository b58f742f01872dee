import { BootError } from '../../../../gateway/src/plugin-api.ts';
import type { IntentData } from './intent-data.ts';
import {
  BOUNDARY,
  EMAIL_TOKEN,
  PHONE_TOKEN,
  createNormaliser,
  sortSuffixes,
  stripSuffix,
  type Normaliser,
} from './normalise.ts';
import { INTENTS, type Intent } from './types.ts';

/** A token trie: phrases and keywords are matched token by token, longest first, with no regex per call. */
export interface TrieNode<T> {
  next: Map<string, TrieNode<T>>;
  value: T | null;
}

export interface PhraseEntry {
  intent: number;
  /** The phrase in normal form (the tier-1 evidence). */
  text: string;
  length: number;
  alone: boolean;
}

export interface KeywordEntry {
  text: string;
  length: number;
  weights: Array<{ intent: number; weight: number }>;
}

/** Intent data turned into matchers once, at startup. Intents are addressed by their index in `intents`. */
export interface CompiledIntents {
  intents: readonly Intent[];
  priority: readonly number[];
  negatable: readonly boolean[];
  descriptions: ReadonlyMap<Intent, string>;
  phrases: TrieNode<PhraseEntry>;
  keywords: TrieNode<KeywordEntry>;
  negators: ReadonlySet<string>;
  /** Negators that do not negate a phrase they follow (tier 1). */
  questionTags: ReadonlySet<string>;
  breakers: ReadonlySet<string>;
  window: number;
  negatedFactor: number;
  thresholds: IntentData['thresholds'];
  normalise: Normaliser;
}

const SPECIAL_TOKENS = new Set([EMAIL_TOKEN, PHONE_TOKEN]);
const SPECIAL = /(<[a-z]+>)/;

function newNode<T>(): TrieNode<T> {
  return { next: new Map(), value: null };
}

function insert<T>(root: TrieNode<T>, tokens: readonly string[]): TrieNode<T> {
  let node = root;
  for (const token of tokens) {
    let child = node.next.get(token);
    if (!child) node.next.set(token, (child = newNode()));
    node = child;
  }
  return node;
}

/**
 * Rewrites replace one lower-case word and give final forms (no chains, no fillers); bigram rewrites name
 * two words as they are after rewrites.
 */
function rewriteProblems(rules: IntentData['normalisation'], source: string): string[] {
  const problems: string[] = [];
  const { rewrites, bigramRewrites } = rules;
  const fillerSet = new Set(rules.fillers);
  const isRewritten = (word: string): boolean => Object.hasOwn(rewrites, word);
  for (const [from, to] of Object.entries(rewrites)) {
    if (from.includes(' ') || from !== from.toLowerCase()) {
      problems.push(`${source}: normalisation.rewrites."${from}": a rewrite replaces one lower-case word`);
    }
    if (fillerSet.has(from))
      problems.push(`${source}: normalisation.rewrites."${from}": also a filler; keep one`);
    if (to.split(' ').includes(from))
      problems.push(`${source}: normalisation.rewrites."${from}": rewrites to itself`);
    for (const word of to.split(' ').filter(Boolean)) {
      if (isRewritten(word) && word !== from) {
        problems.push(
          `${source}: normalisation.rewrites."${from}": "${word}" is rewritten again; write its final form`,
        );
      }
    }
  }
  for (const from of Object.keys(bigramRewrites)) {
    const words = from.split(' ');
    if (words.length !== 2 || words.some((w) => w === '')) {
      problems.push(`${source}: normalisation.bigramRewrites."${from}": the key must be two words`);
    } else if (words.some((w) => isRewritten(w) || fillerSet.has(w))) {
      problems.push(
        `${source}: normalisation.bigramRewrites."${from}": bigrams apply after rewrites and fillers; use the rewritten words`,
      );
    }
  }
  return problems;
}

/**
 * Compiles validated intent data into matchers and checks what the schema cannot: every phrase, keyword,
 * negator and breaker must already be in normal form (the normaliser leaves it unchanged, so what the file
 * says is what is matched), none may be empty, and no phrase may belong to two intents. Every problem is
 * reported at once in a BootError naming `source`.
 */
export function compileIntentData(data: IntentData, source = 'intent data'): CompiledIntents {
  const problems: string[] = [];
  const raw = createNormaliser(data.normalisation);
  problems.push(...rewriteProblems(data.normalisation, source));

  /** The data's own text through the vocabulary-free normaliser; `<email>` and `<phone>` kept. */
  const normaliseData = (text: string, where: string): string[] | null => {
    const tokens: string[] = [];
    for (const part of text.split(SPECIAL)) {
      if (SPECIAL.test(part)) {
        if (SPECIAL_TOKENS.has(part)) tokens.push(part);
        else
          problems.push(
            `${source}: ${where}: unknown placeholder ${part} (known: ${[...SPECIAL_TOKENS].join(', ')})`,
          );
      } else tokens.push(...raw(part));
    }
    if (tokens.length === 0) {
      problems.push(`${source}: ${where}: "${text}" is empty once normalised (only fillers or punctuation)`);
      return null;
    }
    if (tokens.includes(BOUNDARY)) {
      problems.push(`${source}: ${where}: "${text}" contains clause punctuation and could never match`);
      return null;
    }
    const normal = tokens.join(' ');
    if (normal !== text) {
      problems.push(`${source}: ${where}: "${text}" is not in normal form; write "${normal}"`);
      return null;
    }
    return tokens;
  };

  const negation = data.negation;
  const negators = new Set<string>();
  const breakers = new Set<string>();
  for (const [list, target, name] of [
    [negation.negators, negators, 'negators'],
    [negation.breakers, breakers, 'breakers'],
  ] as const) {
    for (const word of list) {
      const tokens = normaliseData(word, `negation.${name}`);
      if (tokens && tokens.length !== 1)
        problems.push(`${source}: negation.${name}: "${word}" must be one word`);
      else if (tokens) target.add(word);
    }
  }
  for (const word of negators) {
    if (breakers.has(word)) problems.push(`${source}: negation: "${word}" is both a negator and a breaker`);
  }
  const questionTags = new Set(negation.questionTags);
  for (const word of questionTags) {
    if (!negators.has(word)) problems.push(`${source}: negation.questionTags: "${word}" is not a negator`);
  }

  // First pass: every phrase and keyword in normal form, and the vocabulary they make.
  interface Pending {
    intent: number;
    tokens: string[];
    where: string;
  }
  const pendingPhrases: Array<Pending & { alone: boolean }> = [];
  const pendingKeywords: Array<Pending & { weight: number }> = [];
  INTENTS.forEach((intent, index) => {
    const def = data.intents[intent];
    for (const [list, alone] of [
      [def.phrases, false],
      [def.alonePhrases, true],
    ] as const) {
      const where = `intents.${intent}.${alone ? 'alonePhrases' : 'phrases'}`;
      for (const phrase of list) {
        const tokens = normaliseData(phrase, where);
        if (tokens) pendingPhrases.push({ intent: index, tokens, where, alone });
      }
    }
    for (const [keyword, weight] of Object.entries(def.keywords)) {
      const tokens = normaliseData(keyword, `intents.${intent}.keywords`);
      if (tokens)
        pendingKeywords.push({ intent: index, tokens, where: `intents.${intent}.keywords`, weight });
    }
  });

  // Suffix stripping also applies to the data, so "programs" in a phrase meets "program" in a keyword.
  const suffixes = sortSuffixes(data.normalisation.suffixes);
  let vocabulary = new Set<string>([...negators, ...breakers]);
  for (const { tokens } of [...pendingPhrases, ...pendingKeywords]) for (const t of tokens) vocabulary.add(t);
  for (let round = 0; round < 5; round++) {
    const current = vocabulary;
    const next = new Set([...current].map((t) => stripSuffix(t, suffixes, current) ?? t));
    if (next.size === current.size) break;
    vocabulary = next;
  }
  const stem = (t: string): string => stripSuffix(t, suffixes, vocabulary) ?? t;
  const stemAll = (tokens: readonly string[], where: string): string[] => {
    const stemmed = tokens.map(stem);
    for (const t of stemmed) {
      if (!vocabulary.has(t)) problems.push(`${source}: ${where}: "${t}" stems in two steps; write its stem`);
    }
    return stemmed;
  };

  const phrases = newNode<PhraseEntry>();
  for (const { intent, tokens, where, alone } of pendingPhrases) {
    const stemmed = stemAll(tokens, where);
    const node = insert(phrases, stemmed);
    const text = stemmed.join(' ');
    if (node.value) {
      const other = INTENTS[node.value.intent] as Intent;
      problems.push(
        `${source}: ${where}: "${text}" is also a phrase of ${other}; a phrase decides one intent`,
      );
      continue;
    }
    node.value = { intent, text, length: stemmed.length, alone };
  }

  const keywords = newNode<KeywordEntry>();
  for (const { intent, tokens, where, weight } of pendingKeywords) {
    const stemmed = stemAll(tokens, where);
    const node = insert(keywords, stemmed);
    const text = stemmed.join(' ');
    node.value ??= { text, length: stemmed.length, weights: [] };
    if (node.value.weights.some((w) => w.intent === intent)) {
      problems.push(`${source}: ${where}: "${text}" appears twice (after suffix stripping)`);
      continue;
    }
    node.value.weights.push({ intent, weight });
  }

  if (problems.length > 0) throw new BootError(problems);
  return {
    intents: INTENTS,
    priority: INTENTS.map((intent) => data.intents[intent].priority),
    negatable: INTENTS.map((intent) => data.intents[intent].negatable),
    descriptions: new Map(INTENTS.map((intent) => [intent, data.intents[intent].description])),
    phrases,
    keywords,
    negators,
    questionTags,
    breakers,
    window: negation.window,
    negatedFactor: negation.negatedFactor,
    thresholds: data.thresholds,
    normalise: createNormaliser(data.normalisation, vocabulary),
  };
}
