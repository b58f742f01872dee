/**
 * LDAP sign-in gives nothing away and cannot be steered: a wrong directory password and an unknown address
 * get the generic error a wrong local password gets, and the address typed is escaped before it goes into
 * the directory's search filter, so it cannot widen the search. Against a real OpenLDAP slapd.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectoryGateway, type DirectoryGateway } from '../../../test/support/ldap-directory.ts';

let directory: DirectoryGateway | null;

beforeAll(async () => {
  directory = await startDirectoryGateway();
});
afterAll(async () => {
  await directory?.close();
});

const login = (email: string, password: string) => (directory as DirectoryGateway).login(email, password);

// Without slapd: fails in CI (requireTool), skips locally with a message naming the package.
describe('LDAP sign-in', () => {
  it('a wrong directory password, or an unknown address, gets the generic error', async () => {
    if (!directory) return;
    const cases: Array<[string, string]> = [
      ['grace@example.com', 'cobol forever 1960'],
      ['nobody@example.com', 'whatever it is'],
      ['grace@example.com', ' '],
    ];
    for (const [email, password] of cases) {
      const res = await login(email, password);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe('auth.invalid_credentials');
    }
  });

  it('escapes the address in the search filter', async () => {
    if (!directory) return;
    const res = await login('*)(uid=grace', 'cobol forever 1959');
    expect(res.status).toBe(401);
  });
});
