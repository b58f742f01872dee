import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../../gateway/src/plugin-api.ts';
import { parseFilter } from './filter.ts';
import { groupConditions, userConditions } from './list-query.ts';

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (err) {
    if (isGatewayError(err)) return err.code;
    throw err;
  }
  return undefined;
}

describe('parseFilter', () => {
  it('reads eq comparisons joined by and, operators in any case, JSON string escapes', () => {
    expect(parseFilter('userName eq "ada@example.com"')).toEqual([
      { attribute: 'userName', value: 'ada@example.com' },
    ]);
    expect(parseFilter('displayName EQ "Sales \\"EU\\"" And externalId eq "42"')).toEqual([
      { attribute: 'displayName', value: 'Sales "EU"' },
      { attribute: 'externalId', value: '42' },
    ]);
    expect(parseFilter('active eq true and x eq null and y eq 12.5')).toEqual([
      { attribute: 'active', value: true },
      { attribute: 'x', value: null },
      { attribute: 'y', value: 12.5 },
    ]);
  });

  it.each([
    'userName co "a"',
    'userName eq',
    'userName eq bare',
    'userName eq "a" or id eq "b"',
    '(userName eq "a")',
    'emails[type eq "work"]',
    'userName eq "unterminated',
    'userName eq "\\x"',
    'not (userName eq "a")',
    '',
    'userName eq "a" and',
    'a eq "1" and b eq "2" and c eq "3" and d eq "4" and e eq "5" and f eq "6" and g eq "7" and h eq "8" and i eq "9" and j eq "10" and k eq "11"',
  ])('refuses %j with invalid_filter', (filter) => {
    expect(codeOf(() => parseFilter(filter))).toBe('auth.scim.invalid_filter');
  });

  it('takes linear time on long adversarial input', () => {
    for (const filter of ['"'.repeat(1000), '\\'.repeat(999), 'a '.repeat(500), `"${'\\"'.repeat(499)}`]) {
      const started = performance.now();
      codeOf(() => parseFilter(filter));
      expect(performance.now() - started).toBeLessThan(50);
    }
    expect(codeOf(() => parseFilter('a'.repeat(1001)))).toBe('auth.scim.invalid_filter');
  });
});

describe('list conditions', () => {
  it('folds userName and displayName, keeps externalId exact, strips the core schema URN', () => {
    expect(
      userConditions('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "ADA@Example.com"'),
    ).toEqual({
      none: false,
      where: { userNameKey: 'ada@example.com' },
    });
    expect(groupConditions('displayName eq "Support" and externalId eq "AbC"')).toEqual({
      none: false,
      where: { displayNameKey: 'support', externalId: 'AbC' },
    });
  });

  it('a malformed id or a contradiction matches nothing rather than failing', () => {
    expect(userConditions('id eq "not-a-uuid"')).toEqual({ none: true });
    expect(userConditions('userName eq "a" and userName eq "b"')).toEqual({ none: true });
    expect(groupConditions('members.value eq "x"')).toEqual({ none: true });
  });

  it('refuses attributes it cannot filter by, and values of the wrong type', () => {
    expect(codeOf(() => userConditions('emails.value eq "a@example.com"'))).toBe('auth.scim.invalid_filter');
    expect(codeOf(() => userConditions('userName eq 5'))).toBe('auth.scim.invalid_filter');
    expect(codeOf(() => userConditions('active eq "maybe"'))).toBe('auth.scim.invalid_filter');
  });
});
