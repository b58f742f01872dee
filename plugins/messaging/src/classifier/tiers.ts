import type { CompiledIntents, PhraseEntry, TrieNode } from './compile.ts';
import { BOUNDARY } from './normalise.ts';
import type { Classification, FallThrough, Intent } from './types.ts';

/** A tier either decides or says why it did not. A string is cheaper than a wrapper on the hot path. */
export type TierResult = Classification | FallThrough;

function longestMatch<T>(root: TrieNode<T>, tokens: readonly string[], start: number): T | null {
  let node = root;
  let found: T | null = null;
  for (let j = start; j < tokens.length; j++) {
    const next = node.next.get(tokens[j] as string);
    if (!next) break;
    node = next;
    if (node.value) found = node.value;
  }
  return found;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/**
 * Tier 1, the deterministic whitelist. Phrases are matched on normalised tokens,
 * longest first, never across a clause boundary. A phrase of a negatable intent does not count when a
 * negator stands within `window` tokens before or after it in the same clause ("saya belum mau daftar",
 * "nama saya belum terdaftar"): tier 1 must be precise, so any nearby negation defers to tier 2. After a
 * phrase, question tags do not count ("bisa datang ke kampus gak?" asks). When
 * several intents match, the highest priority wins (askHuman first; see the README for the order).
 * "Alone" phrases (greetings, thanks, "mau tanya", a bare "biaya") decide only when the whole message is
 * made of them.
 */
export function createWhitelistTier(compiled: CompiledIntents): (tokens: readonly string[]) => TierResult {
  const { phrases, negators, questionTags, breakers, window, negatable, priority, intents } = compiled;

  const better = (a: PhraseEntry, b: PhraseEntry | null): boolean =>
    b === null ||
    (priority[a.intent] as number) > (priority[b.intent] as number) ||
    (priority[a.intent] === priority[b.intent] && a.length > b.length);

  /** Whether a negator (not a question tag) follows within `window` tokens, before any boundary or breaker. */
  const negatorAfter = (tokens: readonly string[], from: number): boolean => {
    const end = Math.min(tokens.length, from + window);
    for (let j = from; j < end; j++) {
      const token = tokens[j] as string;
      if (token === BOUNDARY || breakers.has(token)) return false;
      if (negators.has(token) && !questionTags.has(token)) return true;
    }
    return false;
  };

  return (tokens) => {
    let lastNegator = -1;
    let best: PhraseEntry | null = null;
    let bestAlone: PhraseEntry | null = null;
    let words = 0;
    let covered = 0;
    let negated = false;
    for (let i = 0; i < tokens.length;) {
      const token = tokens[i] as string;
      if (token === BOUNDARY) {
        lastNegator = -1;
        i++;
        continue;
      }
      const hit = longestMatch(phrases, tokens, i);
      if (hit) {
        words += hit.length;
        if (
          negatable[hit.intent] &&
          ((lastNegator >= 0 && i - lastNegator <= window) || negatorAfter(tokens, i + hit.length))
        ) {
          negated = true;
        } else if (hit.alone) {
          covered += hit.length;
          if (better(hit, bestAlone)) bestAlone = hit;
        } else if (better(hit, best)) best = hit;
        i += hit.length;
        continue;
      }
      words++;
      if (negators.has(token)) lastNegator = i;
      else if (breakers.has(token)) lastNegator = -1;
      i++;
    }
    const winner = best ?? (bestAlone && covered === words ? bestAlone : null);
    if (winner) {
      return {
        intent: intents[winner.intent] as Intent,
        tier: 1,
        score: 1,
        margin: null,
        evidence: winner.text,
      };
    }
    return negated ? 'negated' : 'no_match';
  };
}

/**
 * Tier 2, keyword scoring. Each keyword (longest match first, so "biaya kuliah" is
 * one keyword, and a keyword that contains a negator, like "tidak bisa", consumes it) adds its weights. A
 * keyword of a negatable intent within `window` tokens after a negator in the same clause counts its
 * weight times `negatedFactor` instead (≤ 0): "saya belum mau daftar" is evidence against wantRegister.
 * Score = 1 - e^(-sum), in [0, 1); the best must reach `tier2MinScore` and lead the second by
 * `tier2MinMargin`, else the tier falls through (unsure → the model decides).
 */
export function createKeywordTier(compiled: CompiledIntents): (tokens: readonly string[]) => TierResult {
  const { keywords, negators, breakers, window, negatable, negatedFactor, intents, thresholds } = compiled;
  const sums = new Float64Array(intents.length);

  return (tokens) => {
    sums.fill(0);
    let matched = false;
    let negated = false;
    let lastNegator = -1;
    for (let i = 0; i < tokens.length;) {
      const token = tokens[i] as string;
      if (token === BOUNDARY) {
        lastNegator = -1;
        i++;
        continue;
      }
      const hit = longestMatch(keywords, tokens, i);
      if (hit) {
        matched = true;
        const inScope = lastNegator >= 0 && i - lastNegator <= window;
        for (const { intent, weight } of hit.weights) {
          if (inScope && negatable[intent]) {
            sums[intent] = (sums[intent] as number) + weight * negatedFactor;
            negated = true;
          } else sums[intent] = (sums[intent] as number) + weight;
        }
        i += hit.length;
        continue;
      }
      if (negators.has(token)) lastNegator = i;
      else if (breakers.has(token)) lastNegator = -1;
      i++;
    }
    if (!matched) return 'no_match';
    let best = -1;
    let first = 0;
    let second = 0;
    for (let k = 0; k < sums.length; k++) {
      const sum = sums[k] as number;
      if (sum > first) {
        second = first;
        first = sum;
        best = k;
      } else if (sum > second) second = sum;
    }
    if (best < 0) return negated ? 'negated' : 'no_match';
    const score = 1 - Math.exp(-first);
    const margin = score - (1 - Math.exp(-second));
    if (score < thresholds.tier2MinScore) return negated ? 'negated' : 'low_score';
    if (margin < thresholds.tier2MinMargin) return 'low_margin';
    return {
      intent: intents[best] as Intent,
      tier: 2,
      score: round(score),
      margin: round(margin),
      evidence: null,
    };
  };
}
