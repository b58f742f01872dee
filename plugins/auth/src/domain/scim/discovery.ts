import {
  COMMON_ATTRIBUTES,
  GROUP_RESOURCE,
  URN,
  USER_RESOURCE,
  type Attribute,
  type ResourceDefinition,
} from './attributes.ts';
import { MAX_PAGE } from './list-query.ts';
import type { Locations } from './render.ts';
import type { JsonObject } from './json.ts';

/**
 * The discovery documents (RFC 7644, "Service Provider Configuration Endpoints"), rendered from the attribute
 * descriptions in attributes.ts so they say exactly what the gateway reads.
 */
export function serviceProviderConfig(at: Locations): JsonObject {
  return {
    schemas: [URN.serviceProviderConfig],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description: 'A token made with `gatehouse scim token create`, sent as Authorization: Bearer <token>',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${at.base}/ServiceProviderConfig` },
  };
}

const RESOURCES: readonly ResourceDefinition[] = [USER_RESOURCE, GROUP_RESOURCE];

export function resourceType(resource: ResourceDefinition, at: Locations): JsonObject {
  return {
    schemas: [URN.resourceType],
    id: resource.name,
    name: resource.name,
    endpoint: resource.endpoint,
    description: resource.name === 'User' ? 'A user account' : 'A group of users, mapped to roles',
    schema: resource.schema,
    schemaExtensions: resource.extensions.map((extension) => ({ schema: extension.schema, required: false })),
    meta: { resourceType: 'ResourceType', location: `${at.base}/ResourceTypes/${resource.name}` },
  };
}

export function resourceTypes(at: Locations): JsonObject[] {
  return RESOURCES.map((resource) => resourceType(resource, at));
}

/** A resource type by name (case-insensitive), or undefined. */
export function findResourceType(name: string): ResourceDefinition | undefined {
  return RESOURCES.find((resource) => resource.name.toLowerCase() === name.toLowerCase());
}

function describe(attribute: Attribute): JsonObject {
  return {
    name: attribute.name,
    type: attribute.type,
    multiValued: attribute.multiValued,
    description: attribute.description,
    required: attribute.required,
    caseExact: attribute.caseExact,
    mutability: attribute.mutability,
    returned: attribute.returned,
    uniqueness: attribute.uniqueness,
    ...(attribute.referenceTypes ? { referenceTypes: [...attribute.referenceTypes] } : {}),
    ...(attribute.subAttributes ? { subAttributes: attribute.subAttributes.map(describe) } : {}),
  };
}

const SCHEMAS: ReadonlyArray<{
  id: string;
  name: string;
  description: string;
  attributes: readonly Attribute[];
}> = [
  {
    id: URN.user,
    name: 'User',
    description: 'User account',
    attributes: [...COMMON_ATTRIBUTES.filter((a) => a.name !== 'id'), ...USER_RESOURCE.attributes],
  },
  {
    id: URN.enterpriseUser,
    name: 'EnterpriseUser',
    description: 'Enterprise user',
    attributes: USER_RESOURCE.extensions[0]?.attributes ?? [],
  },
  {
    id: URN.group,
    name: 'Group',
    description: 'Group',
    attributes: [...COMMON_ATTRIBUTES.filter((a) => a.name !== 'id'), ...GROUP_RESOURCE.attributes],
  },
];

export function schema(entry: (typeof SCHEMAS)[number], at: Locations): JsonObject {
  return {
    schemas: [URN.schema],
    id: entry.id,
    name: entry.name,
    description: entry.description,
    attributes: entry.attributes.map(describe),
    meta: { resourceType: 'Schema', location: `${at.base}/Schemas/${entry.id}` },
  };
}

export function schemas(at: Locations): JsonObject[] {
  return SCHEMAS.map((entry) => schema(entry, at));
}

/** A schema by its URN (case-insensitive), or undefined. */
export function findSchema(id: string): (typeof SCHEMAS)[number] | undefined {
  return SCHEMAS.find((entry) => entry.id.toLowerCase() === id.toLowerCase());
}
