/**
 * The wildcard admin role: every permission. In oidc mode its holders are the break-glass admins, who may
 * still sign in with a password (README, "Modes").
 */
export const WILDCARD_ROLE = '*';

/** The roles that may use the accounts' admin API. */
export const ACCOUNT_ADMIN_ROLES: readonly string[] = [WILDCARD_ROLE, 'users:admin'];

/**
 * `auth_user_roles.granted_by` of the roles a directory sync manages: LDAP groups at each directory sign-in,
 * SCIM groups at each membership change. A sync removes only its own grants; any other value is a grant by
 * hand (an admin's user id, `cli`) that no sync touches.
 */
export const LDAP_GRANT = 'ldap';
export const SCIM_GRANT = 'scim';
export const SYNC_GRANTS: readonly string[] = [LDAP_GRANT, SCIM_GRANT];
