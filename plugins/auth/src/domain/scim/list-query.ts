import { z } from 'zod';
import { authErrors } from '../../errors.ts';
import { URN } from './attributes.ts';
import { MAX_FILTER_LENGTH, parseFilter, type Comparison } from './filter.ts';
import { asBoolean, foldKey, isScimId } from './json.ts';

/** The most resources one list answer holds (ServiceProviderConfig's `filter.maxResults`). */
export const MAX_PAGE = 200;

const attributeList = z.string().max(2000).optional();

/** `attributes` and `excludedAttributes` (RFC 7644, "Attributes"), on every GET. */
export const projectionQuerySchema = z.object({
  attributes: attributeList,
  excludedAttributes: attributeList,
});

/** A list request's query: filter, paging (1-based `startIndex`, `count`) and the attributes to return. */
export const listQuerySchema = projectionQuerySchema.extend({
  filter: z.string().max(MAX_FILTER_LENGTH).optional(),
  startIndex: z.coerce.number().int().min(-1e9).max(1e9).optional(),
  count: z.coerce.number().int().min(-1e9).max(1e9).optional(),
});

export type ListQuery = z.output<typeof listQuerySchema>;

/**
 * Paging as RFC 7644 reads it: `startIndex` below 1 is 1, a negative `count` is 0 (the total only), and no page
 * is larger than MAX_PAGE (also the default).
 */
export function paging(query: Pick<ListQuery, 'startIndex' | 'count'>): {
  startIndex: number;
  count: number;
} {
  return {
    startIndex: Math.max(1, query.startIndex ?? 1),
    count: Math.min(MAX_PAGE, Math.max(0, query.count ?? MAX_PAGE)),
  };
}

/** The equalities a user list may be filtered by. */
export interface UserConditions {
  userNameKey?: string;
  externalId?: string;
  userId?: string;
  active?: boolean;
}

/** The equalities a group list may be filtered by. */
export interface GroupConditions {
  displayNameKey?: string;
  externalId?: string;
  id?: string;
  memberId?: string;
}

/** Conditions to query with, or `none` when the filter can match nothing (a malformed id, a contradiction). */
export type Conditions<C> = { none: false; where: C } | { none: true };

type Reader<C> = (value: Comparison['value']) => Partial<C> | 'none';

const text =
  <C>(key: keyof C, fold = false): Reader<C> =>
  (value) => {
    if (typeof value !== 'string') throw unsupported('compares with a string');
    return { [key]: fold ? foldKey(value) : value } as Partial<C>;
  };

const id =
  <C>(key: keyof C): Reader<C> =>
  (value) => {
    if (typeof value !== 'string') throw unsupported('compares with a string');
    return isScimId(value) ? ({ [key]: value.toLowerCase() } as Partial<C>) : 'none';
  };

const USER_FILTERS: Record<string, Reader<UserConditions>> = {
  username: text('userNameKey', true),
  externalid: text('externalId'),
  id: id('userId'),
  active: (value) => {
    const flag = asBoolean(value);
    if (flag === undefined) throw unsupported('compares with true or false');
    return { active: flag };
  },
};

const GROUP_FILTERS: Record<string, Reader<GroupConditions>> = {
  displayname: text('displayNameKey', true),
  externalid: text('externalId'),
  id: id('id'),
  members: id('memberId'),
  'members.value': id('memberId'),
};

function unsupported(detail: string) {
  return authErrors.create('auth.scim.invalid_filter', { detail: `The attribute ${detail}` });
}

/** The user filter's conditions: `userName`, `externalId`, `id` and `active` with `eq`. */
export function userConditions(filter: string | undefined): Conditions<UserConditions> {
  return conditions(filter, URN.user, USER_FILTERS, 'userName, externalId, id and active');
}

/** The group filter's conditions: `displayName`, `externalId`, `id` and `members.value` with `eq`. */
export function groupConditions(filter: string | undefined): Conditions<GroupConditions> {
  return conditions(filter, URN.group, GROUP_FILTERS, 'displayName, externalId, id and members.value');
}

function conditions<C>(
  filter: string | undefined,
  schema: string,
  readers: Record<string, Reader<C>>,
  supported: string,
): Conditions<C> {
  if (filter === undefined || filter.trim() === '') return { none: false, where: {} as C };
  const where: Partial<C> = {};
  let none = false;
  for (const comparison of parseFilter(filter)) {
    const name = withoutSchema(comparison.attribute.toLowerCase(), schema.toLowerCase());
    const reader = readers[name];
    if (!reader) {
      throw authErrors.create('auth.scim.invalid_filter', { detail: `Only ${supported} can be filtered by` });
    }
    const read = reader(comparison.value);
    if (read === 'none') {
      none = true;
      continue;
    }
    for (const [key, value] of Object.entries(read) as Array<[keyof C, C[keyof C]]>) {
      // `a eq "x" and a eq "y"` matches nothing.
      if (where[key] !== undefined && where[key] !== value) none = true;
      where[key] = value;
    }
  }
  return none ? { none: true } : { none: false, where: where as C };
}

function withoutSchema(attribute: string, schema: string): string {
  return attribute.startsWith(`${schema}:`) ? attribute.slice(schema.length + 1) : attribute;
}
