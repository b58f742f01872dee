import { createHash } from 'node:crypto';

/**
 * What a migration's checksum covers (ADR 0002, "Checksums"): the file's SQL without its comment lines and
 * blank lines, so that rewording a comment of an applied migration does not refuse boot while any change to
 * a statement still does.
 *
 * A line is left out only when it starts outside every quoted text of the file and holds nothing but
 * whitespace or a `--` comment. Whether a line starts inside quoted text needs a lexer, not a pattern: a
 * line of a multi-line string literal, quoted identifier, dollar-quoted body or block comment can be blank
 * or begin with `--` and still be part of what PostgreSQL runs or stores, so it is kept. Code lines are kept
 * whole, a comment after code included. The lexer follows PostgreSQL's rules with
 * `standard_conforming_strings` on (its default): a backslash escapes only inside `E'...'`.
 */

/** Where a line starts: in code, or inside a construct that spans lines. */
type LexState =
  | { kind: 'code' }
  | { kind: 'block-comment'; depth: number }
  | { kind: 'quoted'; close: "'" | '"'; backslashEscapes: boolean }
  | { kind: 'dollar-quoted'; delimiter: string };

const CODE: LexState = { kind: 'code' };

/** Whitespace (as PostgreSQL reads it), then the end of the line or a `--` comment. */
const COMMENT_OR_BLANK = /^[ \t\f\v\r]*(?:--|$)/;

/** The SHA-256 recorded for a migration: of its statements, comment lines and blank lines left out. */
export function checksum(sql: string): string {
  return sha256(statementsOf(sql));
}

/**
 * The checksum the runner recorded before comments were left out: of the whole file. Databases migrated
 * then still hold it until the runner rewrites their rows (ADR 0002, "Databases migrated before").
 */
export function wholeFileChecksum(sql: string): string {
  return sha256(normaliseLineEndings(sql));
}

/** The lines the checksum covers, joined by `\n`. */
export function statementsOf(sql: string): string {
  const kept: string[] = [];
  let state = CODE;
  for (const line of normaliseLineEndings(sql).split('\n')) {
    if (state.kind === 'code' && COMMENT_OR_BLANK.test(line)) continue;
    kept.push(line);
    state = lexLine(line, state);
  }
  return kept.join('\n');
}

/** A checkout with CRLF line endings does not look like an edited migration. */
function normaliseLineEndings(sql: string): string {
  return sql.replace(/\r\n/g, '\n');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The state at the end of `line`, read from `state` at its start. Each character is looked at once or twice. */
function lexLine(line: string, state: LexState): LexState {
  let current = state;
  let at = 0;
  while (at < line.length) {
    [current, at] = step(line, at, current);
  }
  // A line comment ends with its line; every other construct carries over to the next one.
  return current;
}

/** Reads one token (or one character of a quoted text) at `at`: the new state and where to go on. */
function step(line: string, at: number, state: LexState): [LexState, number] {
  switch (state.kind) {
    case 'code':
      return stepCode(line, at);
    case 'block-comment':
      return stepBlockComment(line, at, state.depth);
    case 'quoted':
      return stepQuoted(line, at, state);
    case 'dollar-quoted': {
      const end = line.indexOf(state.delimiter, at);
      return end === -1 ? [state, line.length] : [CODE, end + state.delimiter.length];
    }
  }
}

function stepCode(line: string, at: number): [LexState, number] {
  const char = line[at];
  const next = line[at + 1];
  if (char === '-' && next === '-') return [CODE, line.length];
  if (char === '/' && next === '*') return [{ kind: 'block-comment', depth: 1 }, at + 2];
  if (char === "'") {
    return [{ kind: 'quoted', close: "'", backslashEscapes: isEscapeStringPrefix(line, at) }, at + 1];
  }
  if (char === '"') return [{ kind: 'quoted', close: '"', backslashEscapes: false }, at + 1];
  if (char === '$' && !(at > 0 && isIdentifierChar(line[at - 1]))) {
    const delimiter = dollarQuoteDelimiter(line, at);
    if (delimiter !== null) return [{ kind: 'dollar-quoted', delimiter }, at + delimiter.length];
  }
  return [CODE, at + 1];
}

/** Block comments nest in PostgreSQL: `/* a /* b *\/ c *\/` is one comment. */
function stepBlockComment(line: string, at: number, depth: number): [LexState, number] {
  const pair = line.slice(at, at + 2);
  if (pair === '/*') return [{ kind: 'block-comment', depth: depth + 1 }, at + 2];
  if (pair === '*/') return [depth === 1 ? CODE : { kind: 'block-comment', depth: depth - 1 }, at + 2];
  return [{ kind: 'block-comment', depth }, at + 1];
}

/** Inside '...' or "...": a doubled quote is one quote character; in E'...', a backslash escapes the next one. */
function stepQuoted(
  line: string,
  at: number,
  state: Extract<LexState, { kind: 'quoted' }>,
): [LexState, number] {
  const char = line[at];
  if (state.backslashEscapes && char === '\\') return [state, at + 2];
  if (char !== state.close) return [state, at + 1];
  return line[at + 1] === state.close ? [state, at + 2] : [CODE, at + 1];
}

/** `E'...'` (or `e'...'`), where the `E` is a prefix and not the end of a longer word. */
function isEscapeStringPrefix(line: string, quoteAt: number): boolean {
  const prefix = line[quoteAt - 1];
  if (prefix !== 'E' && prefix !== 'e') return false;
  return quoteAt < 2 || !isIdentifierChar(line[quoteAt - 2]);
}

/** `$$` or `$tag$` starting at `at` (a tag is an identifier without `$`), else null (`$1` is a parameter). */
function dollarQuoteDelimiter(line: string, at: number): string | null {
  let end = at + 1;
  if (line[end] !== '$') {
    if (!isTagStart(line[end])) return null;
    while (isTagChar(line[end])) end++;
    if (line[end] !== '$') return null;
  }
  return line.slice(at, end + 1);
}

function isTagStart(char: string | undefined): boolean {
  if (char === undefined) return false;
  return char === '_' || (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || char >= '\u0080';
}

function isTagChar(char: string | undefined): boolean {
  return isTagStart(char) || (char !== undefined && char >= '0' && char <= '9');
}

/** A character that continues an identifier or keyword: a `$` after one is part of it, not a quote. */
function isIdentifierChar(char: string | undefined): boolean {
  return isTagChar(char) || char === '$';
}
