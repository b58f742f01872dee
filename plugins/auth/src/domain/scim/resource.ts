import { authErrors } from '../../errors.ts';
import {
  COMMON_ATTRIBUTES,
  findAttribute,
  MAX_STRING,
  MAX_VALUES,
  type Attribute,
  type ResourceDefinition,
} from './attributes.ts';
import { asBoolean, isObject, type Json, type JsonObject } from './json.ts';

const invalidValue = (detail: string) => authErrors.create('auth.scim.invalid_value', { detail });

/**
 * A resource as the gateway keeps it, read from what a client sent (a POST or PUT body, or a resource after
 * PATCH operations): the attributes described in attributes.ts under their own spelling, each checked for its
 * type and length, extension attributes under their schema URN. Unknown and read-only attributes (`id`,
 * `meta`, `groups`, a user's `password`, which is never kept) are dropped; `null` and `""` unassign; booleans
 * may be strings (`"False"`); a required attribute that ends up missing is 400 invalidValue. At most one value
 * of a multi-valued attribute stays primary: the last one marked so, as the one most recently set.
 */
export function readResource(resource: ResourceDefinition, raw: unknown): JsonObject {
  if (!isObject(raw))
    throw authErrors.create('auth.scim.invalid_syntax', { detail: 'The body is a JSON object' });
  const writable = [...COMMON_ATTRIBUTES, ...resource.attributes];
  const read = readAttributes(writable, raw, '');
  for (const extension of resource.extensions) {
    const key = Object.keys(raw).find((name) => name.toLowerCase() === extension.schema.toLowerCase());
    const value = key === undefined ? null : raw[key];
    if (value === null || value === undefined) continue;
    if (!isObject(value)) throw invalidValue(`${extension.schema} is an object`);
    const attributes = readAttributes(extension.attributes, value, `${extension.schema}:`);
    if (Object.keys(attributes).length > 0) read[extension.schema] = attributes;
  }
  for (const attribute of resource.attributes) {
    if (attribute.required && read[attribute.name] === undefined) {
      throw invalidValue(`${attribute.name} is required`);
    }
  }
  return read;
}

function readAttributes(attributes: readonly Attribute[], raw: JsonObject, label: string): JsonObject {
  const read: JsonObject = {};
  for (const [key, value] of Object.entries(raw)) {
    const attribute = findAttribute(attributes, key);
    if (!attribute || attribute.mutability === 'readOnly') continue;
    const checked = readValue(attribute, value, `${label}${attribute.name}`);
    if (checked === undefined) delete read[attribute.name];
    else read[attribute.name] = checked;
  }
  return read;
}

function readValue(attribute: Attribute, value: Json, label: string): Json | undefined {
  if (value === null) return undefined;
  if (attribute.multiValued) return readList(attribute, value, label);
  if (attribute.type === 'complex') return readComplex(attribute, value, label);
  if (attribute.type === 'boolean') {
    const flag = asBoolean(value);
    if (flag === undefined) throw invalidValue(`${label} is true or false`);
    return flag;
  }
  return readString(attribute, value, label);
}

function readString(attribute: Attribute, value: Json, label: string): string | undefined {
  // Numbers become text: some directories send an employee number as one.
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string') throw invalidValue(`${label} is a string`);
  const max = attribute.maxLength ?? MAX_STRING;
  if (text.length > max) throw invalidValue(`${label} has at most ${max} characters`);
  return text === '' ? undefined : text;
}

function readComplex(attribute: Attribute, value: Json, label: string): JsonObject | undefined {
  if (!isObject(value)) throw invalidValue(`${label} is an object`);
  const read = readAttributes(attribute.subAttributes ?? [], value, `${label}.`);
  return Object.keys(read).length > 0 ? read : undefined;
}

/**
 * A multi-valued attribute: an array (a single object is taken as a list of one), values without a `value`
 * dropped, duplicates dropped, at most one primary.
 */
function readList(attribute: Attribute, value: Json, label: string): Json[] | undefined {
  const list = Array.isArray(value) ? value : [value];
  const max = attribute.maxValues ?? MAX_VALUES;
  if (list.length > max) throw invalidValue(`${label} has at most ${max} values`);
  const seen = new Set<string>();
  const items: JsonObject[] = [];
  for (const item of list) {
    const read = item === null ? undefined : readComplex(attribute, item, label);
    if (read === undefined || read.value === undefined) continue;
    const key = JSON.stringify(read);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(read);
  }
  const primary = items.findLastIndex((item) => item.primary === true);
  for (const [index, item] of items.entries()) {
    if (item.primary === true && index !== primary) item.primary = false;
  }
  return items.length > 0 ? items : undefined;
}
