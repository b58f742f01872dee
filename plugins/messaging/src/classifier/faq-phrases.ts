import { BOUNDARY } from './normalise.ts';

/** A published FAQ entry as the phrase table needs it. */
export interface FaqPhraseSource {
  id: string;
  questions: readonly string[];
  answer: string;
  language: 'id' | 'en';
}

/** The entry a message matched, and the question variant (in normal form) it matched on. */
export interface FaqMatch {
  entryId: string;
  answer: string;
  language: 'id' | 'en';
  question: string;
}

interface Node {
  next: Map<string, Node>;
  /** The entries whose variant ends here, oldest first. */
  entries: FaqMatch[];
  length: number;
}

export interface FaqPhraseTable {
  /** How many variants the table holds. */
  readonly size: number;
  /**
   * The entry whose question variant the message contains (longest first; at equal length, one in the
   * conversation's language, then the oldest), or null.
   */
  match(text: string | null, language: 'id' | 'en'): FaqMatch | null;
}

/** A variant's tokens without the clause boundaries at its ends (a trailing "?" must not be required). */
function trimBoundaries(tokens: string[]): string[] {
  let start = 0;
  let end = tokens.length;
  while (start < end && tokens[start] === BOUNDARY) start++;
  while (end > start && tokens[end - 1] === BOUNDARY) end--;
  return tokens.slice(start, end);
}

/**
 * The FAQ's question variants as a second phrase table beside tier 1's (README, "FAQ", "Answers from the
 * FAQ"): each variant is normalised by the classifier's own normaliser and put in a token trie, so a message
 * matches a variant exactly when tier 1 would match it as a phrase (same spelling repair, fillers and
 * suffixes), in time linear in the message, with no expression compiled from admin text.
 */
export function compileFaqPhrases(
  sources: readonly FaqPhraseSource[],
  normalise: (text: string) => string[],
): FaqPhraseTable {
  const root: Node = { next: new Map(), entries: [], length: 0 };
  let size = 0;
  for (const source of sources) {
    for (const question of source.questions) {
      const tokens = trimBoundaries(normalise(question));
      if (tokens.length === 0) continue;
      let node = root;
      for (const token of tokens) {
        let next = node.next.get(token);
        if (!next) {
          next = { next: new Map(), entries: [], length: node.length + 1 };
          node.next.set(token, next);
        }
        node = next;
      }
      if (!node.entries.some((entry) => entry.entryId === source.id)) {
        node.entries.push({
          entryId: source.id,
          answer: source.answer,
          language: source.language,
          question: tokens.join(' '),
        });
        size++;
      }
    }
  }

  const longestAt = (tokens: readonly string[], start: number): Node | null => {
    let node = root;
    let found: Node | null = null;
    for (let j = start; j < tokens.length; j++) {
      const next = node.next.get(tokens[j] as string);
      if (!next) break;
      node = next;
      if (node.entries.length > 0) found = node;
    }
    return found;
  };

  return {
    size,
    match(text, language) {
      if (size === 0 || !text) return null;
      const tokens = normalise(text);
      let best: Node | null = null;
      for (let i = 0; i < tokens.length; i++) {
        const hit = longestAt(tokens, i);
        if (hit && (best === null || hit.length > best.length)) best = hit;
      }
      if (best === null) return null;
      return best.entries.find((entry) => entry.language === language) ?? (best.entries[0] as FaqMatch);
    },
  };
}
