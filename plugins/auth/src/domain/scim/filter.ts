import { authErrors } from '../../errors.ts';

/** One `attribute eq value` of a filter. */
export interface Comparison {
  /** The attribute path as written, e.g. `userName`, `emails.value`, `type`. */
  readonly attribute: string;
  readonly value: string | number | boolean | null;
}

/** Longest filter read; identity providers send a few dozen characters. */
export const MAX_FILTER_LENGTH = 1000;
const MAX_COMPARISONS = 10;

const invalid = (detail: string) => authErrors.create('auth.scim.invalid_filter', { detail });

/**
 * Reads the filters identity providers send (RFC 7644, "Filtering"): comparisons with `eq`, joined by `and`, e.g.
 * `userName eq "ada@example.com"` or `displayName eq "Support" and externalId eq "42"`. Operators and `and`
 * are read without regard to case. Every other operator, `or`, `not`, parentheses and value paths are refused
 * with 400 invalidFilter, as is anything malformed. One pass over the text, so linear in its length.
 */
export function parseFilter(filter: string): Comparison[] {
  if (filter.length > MAX_FILTER_LENGTH)
    throw invalid(`A filter has at most ${MAX_FILTER_LENGTH} characters`);
  const tokens = tokenize(filter);
  const comparisons: Comparison[] = [];
  let index = 0;
  for (;;) {
    const [attribute, operator, value] = [tokens[index], tokens[index + 1], tokens[index + 2]];
    if (attribute?.kind !== 'word' || operator?.kind !== 'word' || value === undefined) {
      throw invalid('Expected `attribute eq value`');
    }
    if (operator.text.toLowerCase() !== 'eq') {
      throw invalid('Only the eq operator is supported');
    }
    comparisons.push({ attribute: attribute.text, value: literal(value) });
    index += 3;
    const next = tokens[index];
    if (next === undefined) break;
    if (next.kind !== 'word' || next.text.toLowerCase() !== 'and') {
      throw invalid('Comparisons may only be joined with `and`');
    }
    index += 1;
    if (comparisons.length >= MAX_COMPARISONS) throw invalid(`At most ${MAX_COMPARISONS} comparisons`);
  }
  return comparisons;
}

type Token = { kind: 'word'; text: string } | { kind: 'string'; value: string };

/** Words (attribute paths, operators, literals) and JSON strings, separated by spaces. */
function tokenize(filter: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < filter.length) {
    const char = filter[at] as string;
    if (char === ' ' || char === '\t') {
      at += 1;
    } else if (char === '"') {
      const end = stringEnd(filter, at);
      tokens.push({ kind: 'string', value: jsonString(filter.slice(at, end + 1)) });
      at = end + 1;
    } else if (char === '(' || char === ')' || char === '[' || char === ']') {
      throw invalid('Grouping and value paths are not supported in filters');
    } else {
      let end = at;
      while (end < filter.length && !' \t"()[]'.includes(filter[end] as string)) end += 1;
      tokens.push({ kind: 'word', text: filter.slice(at, end) });
      at = end;
    }
  }
  return tokens;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at += 1) {
    if (text[at] === '\\') at += 1;
    else if (text[at] === '"') return at;
  }
  throw invalid('A string is not closed');
}

function jsonString(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw invalid('A string has an invalid escape');
  }
}

const NUMBER = /^-?\d{1,15}(?:\.\d{1,15})?$/;

function literal(token: Token): Comparison['value'] {
  if (token.kind === 'string') return token.value;
  const word = token.text.toLowerCase();
  if (word === 'true') return true;
  if (word === 'false') return false;
  if (word === 'null') return null;
  if (NUMBER.test(word)) return Number(word);
  throw invalid('A value is a quoted string, a number, true, false or null');
}
