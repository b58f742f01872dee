import type { Clock } from '../../gateway/src/clock.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { postJson } from './http.ts';
import { startSlapd, type Slapd } from './slapd.ts';

/** The suffix of the example directory. */
export const DIRECTORY_BASE = 'dc=example,dc=com';

/**
 * The directory the LDAP sign-in suites sign in against: two people, Grace (a member of `it-admins` and
 * `staff`) and Alan (`staff` only), each with a `mail` and a password, under `ou=people`, and their groups
 * (`groupOfNames`) under `ou=groups`. Start slapd with `startSlapd(DIRECTORY_BASE)` and add these.
 */
export const EXAMPLE_DIRECTORY: Parameters<Slapd['add']>[0] = [
  [DIRECTORY_BASE, { objectClass: ['dcObject', 'organization'], dc: 'example', o: 'Example' }],
  [`ou=people,${DIRECTORY_BASE}`, { objectClass: 'organizationalUnit', ou: 'people' }],
  [`ou=groups,${DIRECTORY_BASE}`, { objectClass: 'organizationalUnit', ou: 'groups' }],
  [
    `uid=grace,ou=people,${DIRECTORY_BASE}`,
    {
      objectClass: 'inetOrgPerson',
      uid: 'grace',
      cn: 'Grace Hopper',
      sn: 'Hopper',
      mail: 'grace@example.com',
      userPassword: 'cobol forever 1959',
    },
  ],
  [
    `uid=alan,ou=people,${DIRECTORY_BASE}`,
    {
      objectClass: 'inetOrgPerson',
      uid: 'alan',
      cn: 'Alan Turing',
      sn: 'Turing',
      mail: 'alan@example.com',
      userPassword: 'enigma machine 1939',
    },
  ],
  [
    `cn=it-admins,ou=groups,${DIRECTORY_BASE}`,
    { objectClass: 'groupOfNames', cn: 'it-admins', member: [`uid=grace,ou=people,${DIRECTORY_BASE}`] },
  ],
  [
    `cn=staff,ou=groups,${DIRECTORY_BASE}`,
    {
      objectClass: 'groupOfNames',
      cn: 'staff',
      member: [`uid=grace,ou=people,${DIRECTORY_BASE}`, `uid=alan,ou=people,${DIRECTORY_BASE}`],
    },
  ],
];

/** The auth plugin's settings for signing in against the example directory, mapping `it-admins` to `users:admin`. */
export function directoryEnv(slapd: Slapd): Record<string, string> {
  return {
    LDAP_ENABLED: 'true',
    LDAP_URL: slapd.url,
    LDAP_BIND_DN: slapd.adminDn,
    LDAP_BIND_PASSWORD: slapd.adminPassword,
    LDAP_USER_BASE: `ou=people,${DIRECTORY_BASE}`,
    LDAP_GROUP_BASE: `ou=groups,${DIRECTORY_BASE}`,
    LDAP_GROUP_ROLES: JSON.stringify({ 'it-admins': 'users:admin' }),
  };
}

/** A gateway with the auth plugin signing in against the example directory, on its own database. */
export interface DirectoryGateway {
  slapd: Slapd;
  db: TestDatabase;
  gateway: TestGateway;
  /** POST /auth/login with an address and a password. */
  login(email: string, password: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts slapd with the example directory, a database (`seed` runs on it before the gateway boots) and a
 * gateway signing in against the directory. Null when slapd is not installed: CI requires it, a local run
 * skips with a message naming the package (test/support/slapd.ts).
 */
export async function startDirectoryGateway(
  seed: (db: TestDatabase) => Promise<void> = async () => {},
  options: { env?: Record<string, string>; clock?: Clock } = {},
): Promise<DirectoryGateway | null> {
  const slapd = await startSlapd(DIRECTORY_BASE);
  if (!slapd) return null;
  await slapd.add(EXAMPLE_DIRECTORY);
  const db = await createTestDatabase();
  await seed(db);
  const gateway = await startTestGateway({
    databaseUrl: db.url,
    clock: options.clock,
    env: { GATEWAY_PLUGINS: 'auth', ...directoryEnv(slapd), ...options.env },
  });
  return {
    slapd,
    db,
    gateway,
    login: (email, password) => postJson(gateway.url, '/auth/login', { email, password }),
    async close() {
      await gateway.close();
      await db.drop();
      await slapd.stop();
    },
  };
}
