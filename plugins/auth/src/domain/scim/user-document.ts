import { accountEmailSchema, type CanonicalEmail } from '../email.ts';
import { foldKey, isObject, type JsonObject } from './json.ts';

/** What a checked User resource sets (domain/scim/resource.ts made it). */
export interface UserDocumentFields {
  userName: string;
  userNameKey: string;
  externalId: string | null;
  /** Undefined when the resource does not say (a PUT without `active` keeps the current state). */
  active: boolean | undefined;
  /** Everything else the gateway keeps: name, emails, the enterprise extension... */
  attributes: JsonObject;
}

/** Splits a checked User resource into what has columns and what is kept as attributes. */
export function userFields(document: JsonObject): UserDocumentFields {
  const { userName: raw, externalId, active, ...attributes } = document;
  // readResource made sure a User has a userName, a non-empty string.
  const userName = typeof raw === 'string' ? raw : '';
  return {
    userName,
    userNameKey: foldKey(userName),
    externalId: typeof externalId === 'string' ? externalId : null,
    active: typeof active === 'boolean' ? active : undefined,
    attributes,
  };
}

/** A stored user as a resource to apply PATCH operations to. */
export function userDocument(user: {
  userName: string;
  externalId: string | null;
  active: boolean;
  attributes: JsonObject;
}): JsonObject {
  return {
    ...user.attributes,
    userName: user.userName,
    ...(user.externalId !== null ? { externalId: user.externalId } : {}),
    active: user.active,
  };
}

/**
 * The account email of a SCIM user: its primary email, else its first email, else its userName, the first of
 * them that is an address in the canonical form (domain/email.ts); null when none is.
 */
export function accountEmail(document: JsonObject): CanonicalEmail | null {
  const emails = (Array.isArray(document.emails) ? document.emails : []).filter(isObject);
  const ordered = [
    ...emails.filter((email) => email.primary === true),
    ...emails.filter((e) => e.primary !== true),
  ];
  for (const candidate of [...ordered.map((email) => email.value), document.userName]) {
    if (typeof candidate !== 'string') continue;
    const parsed = accountEmailSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  return null;
}
