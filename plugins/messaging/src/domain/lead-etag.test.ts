import { describe, expect, it } from 'vitest';
import { leadEtag, leadPrecondition } from './lead-etag.ts';

const ID = '6f1d2c3b-4a5e-4f60-8b7c-9d0e1f2a3b4c';
const OTHER = '0b5f9a4e-7c1d-4a43-9a51-1f2c6e0d9b77';

describe('leadEtag and leadPrecondition', () => {
  it('make a strong tag of the id and version, and read it back', () => {
    expect(leadEtag(ID, 7)).toBe(`"${ID}.7"`);
    expect(leadPrecondition(leadEtag(ID, 7), ID)).toEqual({ kind: 'versions', versions: [7] });
  });

  it('tell a missing header from `*`', () => {
    expect(leadPrecondition(undefined, ID)).toEqual({ kind: 'missing' });
    expect(leadPrecondition('*', ID)).toEqual({ kind: 'any' });
    expect(leadPrecondition(' * ', ID)).toEqual({ kind: 'any' });
  });

  it('read a list, keeping the versions of this lead only, and never a weak tag', () => {
    expect(leadPrecondition(`"${OTHER}.1", "${ID}.3" ,W/"${ID}.4",	"${ID}.5"`, ID)).toEqual({
      kind: 'versions',
      versions: [3, 5],
    });
    expect(leadPrecondition(`"a,b", "${ID}.2"`, ID)).toEqual({ kind: 'versions', versions: [2] });
  });

  it('match nothing when the header is not a list of entity tags, or names a version no lead can have', () => {
    for (const header of [
      '',
      'stale',
      `${ID}.1`,
      `"${ID}.1`,
      `"${ID}.1" junk`,
      `"${ID}.1",,`,
      `"${ID}.-1"`,
      `"${ID}.1.2"`,
      `"${ID}.2147483648"`,
      `"${ID}.99999999999"`,
      `"${ID.toUpperCase()}.1"`,
      '"' + 'x'.repeat(100_000),
    ]) {
      expect(leadPrecondition(header, ID), header.slice(0, 50)).toEqual({ kind: 'versions', versions: [] });
    }
    expect(leadPrecondition(`"${ID}.2147483647"`, ID)).toEqual({
      kind: 'versions',
      versions: [2_147_483_647],
    });
  });
});
