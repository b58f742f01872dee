import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ValidationIssue } from '../errors/gateway-error.ts';
import { findUnstorableText, mayHoldUnstorableText } from './client-text.ts';

const find = (part: string, value: unknown) => {
  const issues: ValidationIssue[] = [];
  findUnstorableText(part, value, issues);
  return issues;
};

describe('findUnstorableText', () => {
  it('reports each bad string with its dotted path, keys at their object', () => {
    const body = JSON.parse(
      '{"name":"a\\u0000","tags":["ok","\\ud800"],"meta":{"deep":[{"x":"\\udc00"}],"k\\u0000":"hidden"}}',
    ) as unknown;
    expect(find('body', body).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'body.meta', message: expect.stringMatching(/^has a key that contains U\+0000/) as unknown },
      { path: 'body.meta.deep.0.x', message: expect.stringMatching(/surrogate/) as unknown },
      { path: 'body.name', message: expect.stringMatching(/U\+0000/) as unknown },
      { path: 'body.tags.1', message: expect.stringMatching(/surrogate/) as unknown },
    ]);
  });

  it('checks a bare string part and ignores numbers, booleans and null', () => {
    expect(find('params', 'x\u0000')).toEqual([{ path: 'params', message: expect.any(String) as unknown }]);
    expect(find('body', { a: 1, b: true, c: null, d: [1.5, false] })).toEqual([]);
  });

  it('lists at most 20 problems', () => {
    expect(
      find(
        'body',
        Array.from({ length: 100 }, () => '\u0000'),
      ),
    ).toHaveLength(20);
  });

  it('walks very deep values without recursion', () => {
    let value: unknown = '\u0000';
    for (let i = 0; i < 200_000; i++) value = [value];
    expect(find('body', value)).toHaveLength(1);
  });
});

describe('mayHoldUnstorableText', () => {
  const utf8 = (text: string) => mayHoldUnstorableText(Buffer.from(text), 'utf-8');

  it('clears UTF-8 JSON without the escapes that make NUL or surrogates', () => {
    expect(utf8('{"name":"Zoë 😀","n":1}')).toBe(false);
    expect(utf8('{"name":"caf\\u00e9 \\n \\"quoted\\""}')).toBe(false);
    // An escaped backslash, then the letters u0000: no NUL.
    expect(utf8('{"path":"C:\\\\u0000"}')).toBe(false);
  });

  it('flags \\u0000 and any surrogate escape, in either case, and any other charset', () => {
    for (const text of ['"\\u0000"', '"\\ud800"', '"\\uDFFF"', '"\\uD83D\\uDE00"', '{"k\\u0000":1}'])
      expect(utf8(text), text).toBe(true);
    expect(mayHoldUnstorableText(Buffer.from('{}', 'utf16le'), 'utf-16le')).toBe(true);
  });

  // Any UTF-16 code unit, often the ones that matter: NUL, surrogates, and the characters of escapes.
  const unit = fc.oneof(
    fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\\', 'u', 'd', '0', '"'),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  );

  it('never clears a body whose parsed value holds unstorable text (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 4 }), (value) => {
        const issues: ValidationIssue[] = [];
        findUnstorableText('body', value, issues);
        if (issues.length > 0) expect(utf8(JSON.stringify(value))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
