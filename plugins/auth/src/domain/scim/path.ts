import { isGatewayError } from '../../../../../gateway/src/plugin-api.ts';
import { authErrors } from '../../errors.ts';
import {
  COMMON_ATTRIBUTES,
  findAttribute,
  findExtension,
  type Attribute,
  type ResourceDefinition,
} from './attributes.ts';
import { parseFilter, type Comparison } from './filter.ts';

/** What a PATCH path names (RFC 7644, "Modifying with PATCH"). */
export type Target =
  /** An attribute the gateway does not keep: the operation changes nothing. */
  | { readonly kind: 'ignored' }
  /** A whole extension object, e.g. `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User`. */
  | { readonly kind: 'extension'; readonly schema: string }
  | {
      readonly kind: 'attribute';
      /** The extension schema the attribute belongs to; null for the core schema. */
      readonly schema: string | null;
      readonly attribute: Attribute;
      /** `emails[type eq "work"]`: the values it selects. */
      readonly filter?: readonly Comparison[];
      /** `name.givenName`, `emails[type eq "work"].value`; 'ignored' for a sub-attribute not kept. */
      readonly sub?: Attribute | 'ignored';
    };

const MAX_PATH = 512;
/** Attributes only the gateway sets: a PATCH naming one is refused (400 mutability). */
const SERVER_SET = new Set(['id', 'meta', 'schemas']);

const invalidPath = (detail: string) => authErrors.create('auth.scim.invalid_path', { detail });

/**
 * Reads a PATCH `path`: an attribute, optionally prefixed by its schema URN, with an optional value filter in
 * brackets and an optional sub-attribute (`name.familyName`, `emails[type eq "work"].value`,
 * `members[value eq "…"]`, `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager`). Names compare
 * without regard to case. Attributes the gateway does not keep are 'ignored'; server-set ones are refused.
 */
export function parsePath(resource: ResourceDefinition, path: string): Target {
  if (path.length === 0 || path.length > MAX_PATH)
    throw invalidPath(`A path has 1 to ${MAX_PATH} characters`);
  const scoped = withoutSchema(resource, path);
  if (scoped.kind !== 'scoped') return scoped;
  const { name, filter, sub } = splitPath(scoped.rest);
  if (scoped.schema === null && SERVER_SET.has(name.toLowerCase())) {
    throw authErrors.create('auth.scim.mutability', { detail: `${name} is set by the gateway` });
  }
  const attribute = findAttribute(scoped.attributes, name);
  if (!attribute) return { kind: 'ignored' };
  if (attribute.mutability === 'readOnly') {
    throw authErrors.create('auth.scim.mutability', { detail: `${attribute.name} is read-only` });
  }
  if (filter !== undefined && !attribute.multiValued) {
    throw invalidPath(`${attribute.name} has one value: it takes no filter`);
  }
  if (sub !== undefined && attribute.type !== 'complex') {
    throw invalidPath(`${attribute.name} has no sub-attributes`);
  }
  return {
    kind: 'attribute',
    schema: scoped.schema,
    attribute,
    ...(filter !== undefined ? { filter } : {}),
    ...(sub !== undefined
      ? { sub: findAttribute(attribute.subAttributes ?? [], sub) ?? ('ignored' as const) }
      : {}),
  };
}

type Scoped =
  | { kind: 'scoped'; schema: string | null; attributes: readonly Attribute[]; rest: string }
  | { kind: 'ignored' }
  | { kind: 'extension'; schema: string };

/** Splits off a schema URN prefix: the core schema's, an extension's, or an unknown one (ignored). */
function withoutSchema(resource: ResourceDefinition, path: string): Scoped {
  const core = { attributes: [...COMMON_ATTRIBUTES, ...resource.attributes] };
  if (!path.toLowerCase().startsWith('urn:')) return { kind: 'scoped', schema: null, ...core, rest: path };
  const lower = path.toLowerCase();
  if (lower.startsWith(`${resource.schema.toLowerCase()}:`)) {
    return { kind: 'scoped', schema: null, ...core, rest: path.slice(resource.schema.length + 1) };
  }
  const extension = findExtension(resource, path);
  if (extension) return { kind: 'extension', schema: extension.schema };
  for (const candidate of resource.extensions) {
    if (lower.startsWith(`${candidate.schema.toLowerCase()}:`)) {
      const rest = path.slice(candidate.schema.length + 1);
      return { kind: 'scoped', schema: candidate.schema, attributes: candidate.attributes, rest };
    }
  }
  return { kind: 'ignored' };
}

const NAME_CHAR = /[\w$-]/;

/** `name`, `name.sub`, `name[filter]`, `name[filter].sub`; anything else is an invalid path. */
function splitPath(rest: string): { name: string; filter?: Comparison[]; sub?: string } {
  let at = nameEnd(rest, 0);
  const name = rest.slice(0, at);
  if (name === '') throw invalidPath('A path starts with an attribute name');
  let filter: Comparison[] | undefined;
  if (rest[at] === '[') {
    const close = bracketEnd(rest, at);
    filter = valueFilter(rest.slice(at + 1, close));
    at = close + 1;
  }
  let sub: string | undefined;
  if (rest[at] === '.') {
    const end = nameEnd(rest, at + 1);
    sub = rest.slice(at + 1, end);
    if (sub === '') throw invalidPath('A "." is followed by a sub-attribute name');
    at = end;
  }
  if (at !== rest.length) throw invalidPath('The path has characters after the attribute');
  return { name, ...(filter ? { filter } : {}), ...(sub !== undefined ? { sub } : {}) };
}

function nameEnd(text: string, start: number): number {
  let at = start;
  while (at < text.length && NAME_CHAR.test(text[at] as string)) at += 1;
  return at;
}

/** The index of the `]` closing the `[` at `open`, skipping brackets inside quoted strings. */
function bracketEnd(text: string, open: number): number {
  let quoted = false;
  for (let at = open + 1; at < text.length; at += 1) {
    const char = text[at];
    if (quoted && char === '\\') at += 1;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === ']') return at;
  }
  throw invalidPath('A "[" is not closed');
}

function valueFilter(text: string): Comparison[] {
  try {
    return parseFilter(text);
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    throw invalidPath(`The value filter is not supported: ${err.detail}`);
  }
}
