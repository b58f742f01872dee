import type { ValidationIssue } from '../errors/gateway-error.ts';
import { textProblem } from '../text/storable-text.ts';

/** Past this many, a request's text problems are not listed further (the response stays small). */
const MAX_ISSUES = 20;

interface Frame {
  readonly container: object;
  /** The key or array index under the parent (an index stays a number: most are never printed). */
  readonly segment: string | number;
  readonly parent: Frame | null;
}

function pathOf(frame: Frame): string {
  const segments: Array<string | number> = [];
  for (let at: Frame | null = frame; at !== null; at = at.parent) segments.push(at.segment);
  return segments.reverse().join('.');
}

/**
 * Appends to `issues` every string in `value` (object keys included) that `textProblem` refuses, with
 * its dotted path starting at `part` (`body.contact.name`, `query.q`, `params.id`), as validation.failed
 * lists its issues. A bad key is reported at its object's path and not walked into. Iterative, so no
 * nesting can overflow the stack; each string is scanned once, natively.
 */
export function findUnstorableText(part: string, value: unknown, issues: ValidationIssue[]): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem !== null) issues.push({ path: part, message: problem });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const stack: Frame[] = [{ container: value, segment: part, parent: null }];
  const inspect = (item: unknown, segment: string | number, parent: Frame): void => {
    if (typeof item === 'string') {
      const problem = textProblem(item);
      if (problem !== null) issues.push({ path: `${pathOf(parent)}.${segment}`, message: problem });
    } else if (typeof item === 'object' && item !== null) {
      stack.push({ container: item, segment, parent });
    }
  };
  while (stack.length > 0 && issues.length < MAX_ISSUES) {
    const frame = stack.pop() as Frame;
    const container = frame.container;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) inspect(container[i], i, frame);
      continue;
    }
    for (const key in container) {
      const keyProblem = textProblem(key);
      if (keyProblem !== null) issues.push({ path: pathOf(frame), message: `has a key that ${keyProblem}` });
      else inspect((container as Record<string, unknown>)[key], key, frame);
    }
  }
  if (issues.length > MAX_ISSUES) issues.length = MAX_ISSUES;
}

const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

/**
 * Whether a JSON text (its raw bytes, in `charset`) could parse into text that `textProblem` refuses, so
 * the body step can spare the route's text guard a walk over every string of a large body. In UTF-8 JSON
 * neither U+0000 nor a lone surrogate can be written as such: a raw control character is a syntax error
 * and UTF-8 cannot encode surrogates (they decode as U+FFFD). Both can only come from the escapes
 * `\u0000` and `\uD800`-`\uDFFF`. So a UTF-8 body without those escapes is clean; any other charset,
 * or any such escape (a valid pair, an escaped backslash before "u0000" too), means "walk and see".
 */
export function mayHoldUnstorableText(raw: Buffer, charset: string): boolean {
  if (charset !== 'utf-8' && charset !== 'utf8') return true;
  for (let at = raw.indexOf(BACKSLASH); at !== -1; at = raw.indexOf(BACKSLASH, at + 1)) {
    if (raw[at + 1] !== LOWER_U) {
      at++; // an escape of another kind, possibly an escaped backslash: skip its second byte
      continue;
    }
    const first = raw[at + 2];
    const second = raw[at + 3];
    if (first === 0x30 && second === 0x30 && raw[at + 4] === 0x30 && raw[at + 5] === 0x30) return true;
    if ((first === 0x64 || first === 0x44) && second !== undefined && isHexFrom8(second)) return true;
  }
  return false;
}

/** 8-9, a-f, A-F: the second hex digit of a surrogate (D800-DFFF). */
function isHexFrom8(byte: number): boolean {
  return (byte >= 0x38 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46);
}
