const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * True when `value` has the form of an account id (a uuid, `auth_users.id`). A session's `sub` is checked
 * before it reaches a query: an external dashboard's user ids are arbitrary strings, and Postgres answers a
 * malformed uuid with an error, not with "no such row".
 */
export function isUserId(value: string): boolean {
  return USER_ID.test(value);
}
