import { describe, expect, it } from 'vitest';
import { safeReturnTo } from './return-to.ts';

describe('safeReturnTo', () => {
  it('keeps a path of this origin with its query and fragment', () => {
    expect(safeReturnTo('/inbox?x=1#top')).toBe('/inbox?x=1#top');
    expect(safeReturnTo(undefined)).toBe('/');
  });

  it.each([
    'https://evil.example/',
    '//evil.example/path',
    '/\\evil.example',
    '\\\\evil.example',
    'javascript:alert(1)',
    '/\tevil',
    'inbox',
  ])('turns %j into /', (requested) => {
    expect(safeReturnTo(requested)).toBe('/');
  });
});
