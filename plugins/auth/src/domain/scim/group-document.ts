import { authErrors } from '../../errors.ts';
import { foldKey, isObject, isScimId, type JsonObject } from './json.ts';

/** What a checked Group resource sets (domain/scim/resource.ts made it). */
export interface GroupDocumentFields {
  displayName: string;
  displayNameKey: string;
  externalId: string | null;
  /** The members' user ids, lower case, without duplicates. */
  memberIds: string[];
}

/** Splits a checked Group resource into its columns and its members; a member id that is not a uuid is 400. */
export function groupFields(document: JsonObject): GroupDocumentFields {
  const members = (Array.isArray(document.members) ? document.members : []).filter(isObject);
  const memberIds = new Set<string>();
  for (const member of members) {
    const value = member.value;
    if (typeof value !== 'string' || !isScimId(value)) {
      throw authErrors.create('auth.scim.invalid_value', { detail: 'A member value is a user id' });
    }
    memberIds.add(value.toLowerCase());
  }
  const displayName = typeof document.displayName === 'string' ? document.displayName : '';
  return {
    displayName,
    displayNameKey: foldKey(displayName),
    externalId: typeof document.externalId === 'string' ? document.externalId : null,
    memberIds: [...memberIds],
  };
}

/** A stored group as a resource to apply PATCH operations to. */
export function groupDocument(
  group: { displayName: string; externalId: string | null },
  memberIds: readonly string[],
): JsonObject {
  return {
    displayName: group.displayName,
    ...(group.externalId !== null ? { externalId: group.externalId } : {}),
    members: memberIds.map((value) => ({ value })),
  };
}
