import { isUserId } from '../user-id.ts';

/** JSON as SCIM requests carry it, and the small checks every SCIM reader needs. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A boolean as identity providers send it: JSON true/false, or the strings "true"/"false" in any case (Entra ID
 * sends `"False"`). Anything else is undefined.
 */
export function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return lower === 'true' ? true : lower === 'false' ? false : undefined;
}

/**
 * The key SCIM compares a case-insensitive string by (userName, displayName, `type` in a value filter): NFKC,
 * then lower case, folded by the gateway rather than by the database, whose lower() follows its locale.
 */
export function foldKey(value: string): string {
  return value.normalize('NFKC').toLowerCase();
}

/** True when `value` has the form of a SCIM id: a uuid (users' ids are account ids; groups' are uuids too). */
export function isScimId(value: string): boolean {
  return isUserId(value);
}
