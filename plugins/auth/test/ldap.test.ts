/**
 * LDAP sign-in (README, "LDAP sign-in") against a real OpenLDAP slapd started by the test: directory login,
 * group → role mapping, directory-managed accounts, local accounts beside them. What it refuses, and how,
 * is in ldap.security.test.ts.
 */
import argon2 from 'argon2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARGON2_PARAMS } from '../src/service/password-hasher.ts';
import { userStore } from '../src/store/user-store.ts';
import { canonical } from '../../../test/support/accounts.ts';
import { startDirectoryGateway, type DirectoryGateway } from '../../../test/support/ldap-directory.ts';

let directory: DirectoryGateway | null;

beforeAll(async () => {
  directory = await startDirectoryGateway(async (db) => {
    await userStore.insertLocal(
      db.pool,
      canonical('ada@example.com'),
      await argon2.hash('violet umbrella 42', ARGON2_PARAMS),
    );
  });
});
afterAll(async () => {
  await directory?.close();
});

const login = (email: string, password: string) => (directory as DirectoryGateway).login(email, password);

// Without slapd: fails in CI (requireTool), skips locally with a message naming the package.
describe('LDAP sign-in', () => {
  it('a directory login provisions a directory-managed account with the roles its groups map to', async () => {
    if (!directory) return;
    const res = await login('grace@example.com', 'cobol forever 1959');
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/^authjs\.session-token=/);
    expect(await res.json()).toMatchObject({ user: { email: 'grace@example.com', roles: ['users:admin'] } });
    expect(await userStore.findByEmail(directory.db.pool, canonical('grace@example.com'))).toMatchObject({
      provider: 'ldap',
      directoryManaged: true,
      passwordHash: null,
      roles: ['users:admin'],
    });
  });

  it('a member of no mapped group gets no role', async () => {
    if (!directory) return;
    const res = await login('alan@example.com', 'enigma machine 1939');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { roles: [] } });
  });

  it('another spelling of a directory address signs in to the same account, stored once canonically', async () => {
    if (!directory) return;
    const first = await login('Alan@EXAMPLE.com', 'enigma machine 1939');
    expect(first.status).toBe(200);
    const again = await login('ａｌａｎ@example.com', 'enigma machine 1939');
    expect(again.status).toBe(200);
    const ids = [first, again].map(async (res) => ((await res.json()) as { user: { id: string } }).user.id);
    expect(new Set(await Promise.all(ids)).size).toBe(1);
    const { rows } = await directory.db.pool.query("SELECT email FROM auth_users WHERE email ILIKE '%alan%'");
    expect(rows).toEqual([{ email: 'alan@example.com' }]);
  });

  it('local accounts keep signing in with their own password', async () => {
    if (!directory) return;
    expect((await login('ada@example.com', 'violet umbrella 42')).status).toBe(200);
  });
});
