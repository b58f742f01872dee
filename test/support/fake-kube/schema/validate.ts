/**
 * OpenAPI v3 validation of a value against a structural schema, worded as the API server words it (its
 * kube-openapi validator, turned into field errors): `spec.x in body should match '^a$'`, `Unsupported value`,
 * `Required value`, `Too long`, `Too many`, `spec.x in body must be of type integer: "string"`.
 */
import type { FieldError } from './field-errors.ts';
import { isObject, propertySchema, type Schema } from './types.ts';

/** Joins a property to a path the way the validator names it (`spec.x`, `spec.env[0].name`). */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

const patterns = new Map<string, RegExp | null>();

/** A schema pattern as a JS regular expression (Go RE2 syntax, which JS accepts for the usual patterns). */
export function compilePattern(pattern: string): RegExp | null {
  if (!patterns.has(pattern)) {
    try {
      patterns.set(pattern, new RegExp(pattern, 'u'));
    } catch {
      patterns.set(pattern, null);
    }
  }
  return patterns.get(pattern) ?? null;
}

// RFC 3339 as strfmt's date-time parser accepts it: date, T (or t, space), time, fraction, Z or offset.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Every schema violation of `value` at `path` (the object root is ''), in the validator's order. */
export function validateValue(schema: Schema, value: unknown, path: string, base = ''): FieldError[] {
  const errors: FieldError[] = [];
  check(schema, value, path, base, errors);
  return errors;
}

/** The field of an error: the validator's name below `base` (a CRD default's own path, or the object root). */
function field(base: string, path: string): string {
  if (path === '') return base || '<nil>';
  if (base === '' || path.startsWith('[')) return `${base}${path}`;
  return `${base}.${path}`;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'object' ? 'object' : typeof value;
}

function typeMatches(schema: Schema, value: unknown): boolean {
  if (schema['x-kubernetes-int-or-string'])
    return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  const actual = typeName(value);
  switch (schema.type) {
    case undefined:
    case '':
      return true;
    case 'number':
      return actual === 'number' || actual === 'integer';
    default:
      return actual === schema.type;
  }
}

function check(schema: Schema, value: unknown, path: string, base: string, errors: FieldError[]): void {
  const name = path || '.';
  const at = field(base, path);
  if (value === null || value === undefined) {
    if (schema.nullable || schema.type === undefined) return;
    errors.push({
      type: 'FieldValueTypeInvalid',
      field: at,
      value: null,
      detail: `${name} in body must be of type ${schema.type}`,
    });
    return;
  }
  if (!typeMatches(schema, value)) {
    const actual = typeName(value);
    const expected = schema['x-kubernetes-int-or-string'] ? 'integer,string' : String(schema.type);
    errors.push({
      type: 'FieldValueTypeInvalid',
      field: at,
      value: actual,
      detail: `${name} in body must be of type ${expected}: "${actual}"`,
    });
    return;
  }
  if (schema.enum && !schema.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    const supported = schema.enum.map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v)));
    errors.push({
      type: 'FieldValueNotSupported',
      field: at,
      value,
      detail: `supported values: ${supported.join(', ')}`,
    });
  }
  if (typeof value === 'string') checkString(schema, value, name, at, errors);
  else if (typeof value === 'number') checkNumber(schema, value, name, at, errors);
  else if (Array.isArray(value)) checkArray(schema, value, path, base, errors);
  else if (isObject(value)) checkObject(schema, value, path, base, errors);
}

function checkString(schema: Schema, value: string, name: string, at: string, errors: FieldError[]): void {
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) {
    const unit = schema.maxLength === 1 ? 'byte' : 'bytes';
    errors.push({
      type: 'FieldValueTooLong',
      field: at,
      value,
      detail: `may not be more than ${schema.maxLength} ${unit}`,
    });
  }
  if (schema.minLength !== undefined && length < schema.minLength) {
    const detail = `${name} in body should be at least ${schema.minLength} chars long`;
    errors.push({ type: 'FieldValueInvalid', field: at, value, detail });
  }
  if (schema.pattern !== undefined && !compilePattern(schema.pattern)?.test(value)) {
    const detail = `${name} in body should match '${schema.pattern}'`;
    errors.push({ type: 'FieldValueInvalid', field: at, value, detail });
  }
  if (schema.format === 'date-time' && !(DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)))) {
    const detail = `${name} in body must be of type date-time: ${JSON.stringify(value)}`;
    errors.push({ type: 'FieldValueTypeInvalid', field: at, value, detail });
  }
}

function checkNumber(schema: Schema, value: number, name: string, at: string, errors: FieldError[]): void {
  const fail = (detail: string) =>
    errors.push({ type: 'FieldValueInvalid', field: at, value, detail: `${name} in body ${detail}` });
  if (schema.minimum !== undefined) {
    if (schema.exclusiveMinimum && value <= schema.minimum) fail(`should be greater than ${schema.minimum}`);
    else if (value < schema.minimum) fail(`should be greater than or equal to ${schema.minimum}`);
  }
  if (schema.maximum !== undefined) {
    if (schema.exclusiveMaximum && value >= schema.maximum) fail(`should be less than ${schema.maximum}`);
    else if (value > schema.maximum) fail(`should be less than or equal to ${schema.maximum}`);
  }
  if (schema.multipleOf !== undefined && value % schema.multipleOf !== 0)
    fail(`should be a multiple of ${schema.multipleOf}`);
}

function checkArray(
  schema: Schema,
  value: unknown[],
  path: string,
  base: string,
  errors: FieldError[],
): void {
  const name = path || '.';
  const at = field(base, path);
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    const detail = `${name} in body should have at least ${schema.minItems} items`;
    errors.push({ type: 'FieldValueInvalid', field: at, value: value.length, detail });
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    const detail = `must have at most ${schema.maxItems} item${schema.maxItems === 1 ? '' : 's'}`;
    errors.push({ type: 'FieldValueTooMany', field: at, value: value.length, detail });
  }
  if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) {
    const detail = `${name} in body shouldn't contain duplicates`;
    errors.push({ type: 'FieldValueInvalid', field: at, value: '', detail });
  }
  const items = schema.items;
  if (items) value.forEach((item, index) => check(items, item, childPath(path, index), base, errors));
}

function checkObject(
  schema: Schema,
  value: Record<string, unknown>,
  path: string,
  base: string,
  errors: FieldError[],
): void {
  const name = path || '.';
  const at = field(base, path);
  for (const key of schema.required ?? []) {
    if (value[key] === undefined)
      errors.push({ type: 'FieldValueRequired', field: field(base, childPath(path, key)), detail: '' });
  }
  const count = Object.keys(value).length;
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    const detail = `must have at most ${schema.maxProperties} item${schema.maxProperties === 1 ? '' : 's'}`;
    errors.push({ type: 'FieldValueTooMany', field: at, value: count, detail });
  }
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    const detail = `${name} in body should have at least ${schema.minProperties} properties`;
    errors.push({ type: 'FieldValueInvalid', field: at, value: count, detail });
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema = propertySchema(schema, key);
    if (childSchema) check(childSchema, child, childPath(path, key), base, errors);
  }
}
