/**
 * The SCIM attributes the gateway keeps (RFC 7643), described once: the `/Schemas` documents are rendered from
 * these descriptions, and reading a resource, applying a PATCH and checking values all walk them. An attribute
 * that is not described here is ignored wherever it appears (README, "SCIM provisioning").
 */

export const URN = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterpriseUser: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export type AttributeType = 'string' | 'boolean' | 'complex' | 'reference';
export type Mutability = 'readOnly' | 'readWrite' | 'immutable';

export interface Attribute {
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued: boolean;
  readonly required: boolean;
  readonly caseExact: boolean;
  readonly mutability: Mutability;
  readonly returned: 'always' | 'default';
  readonly uniqueness: 'none' | 'server';
  readonly description: string;
  readonly subAttributes?: readonly Attribute[];
  readonly referenceTypes?: readonly string[];
  /** Longest string value (default MAX_STRING); not part of the published schema. */
  readonly maxLength?: number;
  /** Most values of a multi-valued attribute (default MAX_VALUES); not part of the published schema. */
  readonly maxValues?: number;
}

/** Longest string value kept; longer values are refused (400 invalidValue). */
export const MAX_STRING = 1024;
/** Most values of a multi-valued attribute such as emails; more are refused (400 invalidValue). */
export const MAX_VALUES = 100;
/** Most members one group document may list. */
export const MAX_MEMBERS = 100_000;

type Options = Partial<Omit<Attribute, 'name' | 'type' | 'description' | 'subAttributes'>>;

function attribute(name: string, type: AttributeType, description: string, options: Options = {}): Attribute {
  return {
    name,
    type,
    description,
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...options,
  };
}

const text = (name: string, description: string, options?: Options) =>
  attribute(name, 'string', description, options);

function complex(
  name: string,
  description: string,
  subAttributes: readonly Attribute[],
  options: Options = {},
): Attribute {
  return { ...attribute(name, 'complex', description, options), subAttributes };
}

/** The sub-attributes of emails and phone numbers (RFC 7643, "Multi-Valued Attributes"). */
const valueWithType = (what: string) => [
  text('value', `The ${what}`),
  text('display', `A label for the ${what}`),
  text('type', `The kind of ${what}: work, home, other`),
  attribute('primary', 'boolean', `Whether this is the primary ${what}; at most one is`),
];

export const USER_ATTRIBUTES: readonly Attribute[] = [
  text('userName', 'Unique identifier of the user in the directory; compared without regard to case', {
    required: true,
    uniqueness: 'server',
    maxLength: 256,
  }),
  complex('name', "The user's name", [
    text('formatted', 'The full name, formatted for display'),
    text('familyName', 'The family name'),
    text('givenName', 'The given name'),
    text('middleName', 'The middle name'),
    text('honorificPrefix', 'Title before the name'),
    text('honorificSuffix', 'Suffix after the name'),
  ]),
  text('displayName', 'The name shown for the user'),
  text('nickName', 'A casual name'),
  attribute('profileUrl', 'reference', 'A page about the user', { referenceTypes: ['external'] }),
  text('title', 'Job title'),
  text('userType', 'Relationship to the organisation, e.g. Employee'),
  text('preferredLanguage', 'Preferred language, e.g. en-US'),
  text('locale', 'Locale for formatting, e.g. en-US'),
  text('timezone', 'Time zone, e.g. Europe/Berlin'),
  attribute('active', 'boolean', 'False disables the account and ends its sessions'),
  complex(
    'emails',
    'Email addresses; the primary one (else the first) is the account email',
    valueWithType('email address'),
    { multiValued: true },
  ),
  complex('phoneNumbers', 'Phone numbers', valueWithType('phone number'), { multiValued: true }),
  complex(
    'groups',
    'The groups the user belongs to; changed through the groups, never here',
    [
      text('value', 'The group id', { mutability: 'readOnly' }),
      attribute('$ref', 'reference', 'The group URI', { mutability: 'readOnly', referenceTypes: ['Group'] }),
      text('display', 'The group name', { mutability: 'readOnly' }),
      text('type', 'direct', { mutability: 'readOnly' }),
    ],
    { multiValued: true, mutability: 'readOnly' },
  ),
];

export const ENTERPRISE_USER_ATTRIBUTES: readonly Attribute[] = [
  text('employeeNumber', 'Employee number'),
  text('costCenter', 'Cost centre'),
  text('organization', 'Organisation'),
  text('division', 'Division'),
  text('department', 'Department'),
  complex('manager', "The user's manager", [
    text('value', "The manager's id"),
    attribute('$ref', 'reference', "The manager's URI", { referenceTypes: ['User'] }),
    text('displayName', "The manager's name", { mutability: 'readOnly' }),
  ]),
];

export const GROUP_ATTRIBUTES: readonly Attribute[] = [
  text('displayName', 'The group name; SCIM_GROUP_ROLES maps it to gateway roles', {
    required: true,
    maxLength: 256,
  }),
  complex(
    'members',
    'The users in the group (nested groups are not supported)',
    [
      text('value', 'The user id', { mutability: 'immutable', caseExact: true }),
      attribute('$ref', 'reference', 'The user URI', { mutability: 'immutable', referenceTypes: ['User'] }),
      text('display', 'The user name', { mutability: 'readOnly' }),
      text('type', 'User', { mutability: 'immutable' }),
    ],
    { multiValued: true, maxValues: MAX_MEMBERS },
  ),
];

/** id, externalId and meta, which every resource has (RFC 7643, "Common Attributes"). */
export const COMMON_ATTRIBUTES: readonly Attribute[] = [
  text('id', 'The gateway id of the resource', {
    mutability: 'readOnly',
    returned: 'always',
    caseExact: true,
    uniqueness: 'server',
  }),
  text('externalId', "The directory's own id for the resource", { caseExact: true, maxLength: 256 }),
];

/** A resource type: its core schema and attributes, and the extensions it may carry. */
export interface ResourceDefinition {
  readonly name: 'User' | 'Group';
  readonly endpoint: '/Users' | '/Groups';
  readonly schema: string;
  readonly attributes: readonly Attribute[];
  readonly extensions: ReadonlyArray<{ readonly schema: string; readonly attributes: readonly Attribute[] }>;
}

export const USER_RESOURCE: ResourceDefinition = {
  name: 'User',
  endpoint: '/Users',
  schema: URN.user,
  attributes: USER_ATTRIBUTES,
  extensions: [{ schema: URN.enterpriseUser, attributes: ENTERPRISE_USER_ATTRIBUTES }],
};

export const GROUP_RESOURCE: ResourceDefinition = {
  name: 'Group',
  endpoint: '/Groups',
  schema: URN.group,
  attributes: GROUP_ATTRIBUTES,
  extensions: [],
};

/** The attribute named `name` (compared without regard to case, as SCIM names are), if described. */
export function findAttribute(attributes: readonly Attribute[], name: string): Attribute | undefined {
  const wanted = name.toLowerCase();
  return attributes.find((attribute) => attribute.name.toLowerCase() === wanted);
}

/** The extension whose schema URN is `urn` (without regard to case), if the resource has it. */
export function findExtension(
  resource: ResourceDefinition,
  urn: string,
): ResourceDefinition['extensions'][number] | undefined {
  const wanted = urn.toLowerCase();
  return resource.extensions.find((extension) => extension.schema.toLowerCase() === wanted);
}
