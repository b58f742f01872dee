/**
 * LDAP sign-in gives nothing away and cannot be steered: a wrong directory password and an unknown address
 * get the generic error a wrong local password gets, and the address typed is escaped before it goes into
 * the directory's search filter, so it cannot widen the search. Against a real OpenLDAP slapd.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database.ts';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway.ts';
import { startSlapd, type Slapd } from '../../../test/support/slapd.ts';
import { DIRECTORY_BASE, directoryEnv, EXAMPLE_DIRECTORY } from '../../../test/support/ldap-directory.ts';

let slapd: Slapd | null;
let db: TestDatabase;
let gateway: TestGateway;

beforeAll(async () => {
  slapd = await startSlapd(DIRECTORY_BASE);
  if (!slapd) return;
  await slapd.add(EXAMPLE_DIRECTORY);
  db = await createTestDatabase();
  gateway = await startTestGateway({
    databaseUrl: db.url,
    env: {
      GATEWAY_PLUGINS: 'auth',
      ...directoryEnv(slapd),
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await db?.drop();
  await slapd?.stop();
});

const login = (email: string, password: string) =>
  fetch(`${gateway.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

// Without slapd: fails in CI (requireTool), skips locally with a message naming the package.
describe('LDAP sign-in', () => {
  it('a wrong directory password, or an unknown address, gets the generic error', async () => {
    if (!slapd) return;
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
    if (!slapd) return;
    const res = await login('*)(uid=grace', 'cobol forever 1959');
    expect(res.status).toBe(401);
  });
});
