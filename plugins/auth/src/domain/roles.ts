/**
 * The wildcard admin role: every permission. In oidc mode its holders are the break-glass admins, who may
 * still sign in with a password (README, "Modes").
 */
export const WILDCARD_ROLE = '*';

/** The roles that may use the accounts' admin API. */
export const ACCOUNT_ADMIN_ROLES: readonly string[] = [WILDCARD_ROLE, 'users:admin'];
