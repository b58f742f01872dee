import type { Slapd } from './slapd.ts';

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
