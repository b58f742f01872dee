import { describe, expect, it } from 'vitest';
import { RETURN_TO_MAX, safeReturnTo } from './return-to.ts';

describe('safeReturnTo', () => {
  it.each([
    ['/', '/'],
    ['/inbox', '/inbox'],
    ['/leads?status=new#top', '/leads?status=new#top'],
    ['/a/../b', '/b'],
    ['/search?q=a b', '/search?q=a%20b'],
  ])('keeps the same-origin path %s', (value, expected) => {
    expect(safeReturnTo(value)).toBe(expected);
  });

  it.each([
    ['another origin', 'https://evil.example'],
    ['another origin with a path', 'https://evil.example/login'],
    ['a protocol-relative URL', '//evil.example/x'],
    ['a backslash spelling browsers read as //', '/\\evil.example'],
    ['a tab inside //', '/\t/evil.example'],
    ['a newline inside //', '/\n/evil.example'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,hi'],
    ['a relative path', 'inbox'],
    ['an empty value', ''],
    ['a value too long', `/${'a'.repeat(RETURN_TO_MAX)}`],
    ['a non-string', ['/a', '/b']],
    ['nothing', undefined],
  ])('refuses %s', (_what, value) => {
    expect(safeReturnTo(value)).toBe('/');
  });
});
