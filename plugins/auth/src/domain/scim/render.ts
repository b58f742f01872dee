import { GROUP_RESOURCE, URN, USER_RESOURCE, type ResourceDefinition } from './attributes.ts';
import { isObject, type JsonObject } from './json.ts';

/** Where resources live, for `meta.location` and `$ref`: APP_BASE_URL's origin and the SCIM base path. */
export interface Locations {
  /** e.g. `https://gatehouse.example.com/api/v1/scim/v2`, or just the path without APP_BASE_URL. */
  readonly base: string;
}

/** A user as the service reads it: its SCIM columns and its groups. */
export interface UserView {
  id: string;
  userName: string;
  externalId: string | null;
  active: boolean;
  attributes: JsonObject;
  createdAt: Date;
  updatedAt: Date;
  groups: ReadonlyArray<{ id: string; displayName: string }>;
}

export interface GroupView {
  id: string;
  displayName: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Undefined when the request excluded members (they are not read then). */
  members?: ReadonlyArray<{ value: string; display: string }>;
}

const meta = (
  resource: ResourceDefinition,
  view: { id: string; createdAt: Date; updatedAt: Date },
  at: Locations,
) => ({
  resourceType: resource.name,
  created: view.createdAt.toISOString(),
  lastModified: view.updatedAt.toISOString(),
  location: `${at.base}${resource.endpoint}/${view.id}`,
});

/** A User resource (RFC 7643), with the enterprise extension's URN in `schemas` when it has any of it. */
export function renderUser(view: UserView, at: Locations): JsonObject {
  const extensions = USER_RESOURCE.extensions
    .map((e) => e.schema)
    .filter((urn) => isObject(view.attributes[urn]));
  return {
    schemas: [URN.user, ...extensions],
    id: view.id,
    ...(view.externalId !== null ? { externalId: view.externalId } : {}),
    userName: view.userName,
    ...view.attributes,
    active: view.active,
    groups: view.groups.map((group) => ({
      value: group.id,
      $ref: `${at.base}${GROUP_RESOURCE.endpoint}/${group.id}`,
      display: group.displayName,
      type: 'direct',
    })),
    meta: meta(USER_RESOURCE, view, at),
  };
}

export function renderGroup(view: GroupView, at: Locations): JsonObject {
  return {
    schemas: [URN.group],
    id: view.id,
    ...(view.externalId !== null ? { externalId: view.externalId } : {}),
    displayName: view.displayName,
    ...(view.members
      ? {
          members: view.members.map((member) => ({
            value: member.value,
            $ref: `${at.base}${USER_RESOURCE.endpoint}/${member.value}`,
            display: member.display,
            type: 'User',
          })),
        }
      : {}),
    meta: meta(GROUP_RESOURCE, view, at),
  };
}

/** A list answer (RFC 7644, "List Response"). */
export function listResponse(total: number, startIndex: number, resources: JsonObject[]): JsonObject {
  return {
    schemas: [URN.listResponse],
    totalResults: total,
    itemsPerPage: resources.length,
    startIndex,
    Resources: resources,
  };
}
