import { isJsonObject } from './json.ts';
import { childPath, type JsonSchema, type SchemaProblem } from './json-schema.ts';

/**
 * Checks a value against a CRD schema the way the API server does before it runs the CEL rules: types,
 * enums, patterns, lengths, bounds, required fields, unique list entries, and unknown fields (which the
 * server drops, or refuses under `kubectl apply --validate=strict`; here they are problems, since a field
 * that silently disappears is a typo nobody sees). Run it on a defaulted value.
 */
export function checkStructure(schema: JsonSchema, value: unknown, path = ''): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  check(schema, value, path, problems);
  return problems;
}

const patterns = new Map<string, RegExp>();
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function regex(pattern: string): RegExp {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    compiled = new RegExp(pattern, 'u');
    patterns.set(pattern, compiled);
  }
  return compiled;
}

function check(schema: JsonSchema, value: unknown, path: string, problems: SchemaProblem[]): void {
  const fail = (message: string) => problems.push({ path, message });
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return void fail(`must be a string (got ${typeName(value)})`);
      const length = [...value].length;
      if (schema.enum && !schema.enum.includes(value))
        fail(`must be one of: ${schema.enum.join(', ')} (got "${value}")`);
      if (schema.minLength !== undefined && length < schema.minLength)
        fail(`must be at least ${schema.minLength} characters`);
      if (schema.maxLength !== undefined && length > schema.maxLength)
        fail(`must be at most ${schema.maxLength} characters`);
      if (schema.pattern !== undefined && !regex(schema.pattern).test(value))
        fail(`must match ${schema.pattern} (got "${value}")`);
      if (schema.format === 'date-time' && !(DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))))
        fail(`must be an RFC 3339 date-time (got "${value}")`);
      return;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return void fail(`must be a number (got ${typeName(value)})`);
      if (schema.type === 'integer' && !Number.isInteger(value))
        return void fail(`must be an integer (got ${value})`);
      if (schema.minimum !== undefined && value < schema.minimum) fail(`must be at least ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) fail(`must be at most ${schema.maximum}`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') fail(`must be true or false (got ${typeName(value)})`);
      return;
    case 'array':
      if (!Array.isArray(value)) return void fail(`must be a list (got ${typeName(value)})`);
      checkArray(schema, value, path, problems);
      return;
    case 'object':
      if (!isJsonObject(value)) return void fail(`must be an object (got ${typeName(value)})`);
      checkObject(schema, value, path, problems);
      return;
  }
}

function checkArray(schema: JsonSchema, value: unknown[], path: string, problems: SchemaProblem[]): void {
  if (schema.minItems !== undefined && value.length < schema.minItems)
    problems.push({ path, message: `must have at least ${schema.minItems} entries` });
  if (schema.maxItems !== undefined && value.length > schema.maxItems)
    problems.push({ path, message: `must have at most ${schema.maxItems} entries` });
  const items = schema.items;
  if (items) value.forEach((item, index) => check(items, item, childPath(path, index), problems));
  // x-kubernetes-list-type: set entries are unique; map entries are unique by their keys.
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== 'set' && listType !== 'map') return;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const identity =
      listType === 'set'
        ? JSON.stringify(item)
        : JSON.stringify(keys.map((key) => (isJsonObject(item) ? item[key] : undefined)));
    if (seen.has(identity))
      problems.push({ path: childPath(path, index), message: `duplicate entry ${identity}` });
    seen.add(identity);
  });
}

function checkObject(
  schema: JsonSchema,
  value: Record<string, unknown>,
  path: string,
  problems: SchemaProblem[],
): void {
  for (const key of schema.required ?? []) {
    if (value[key] === undefined || value[key] === null)
      problems.push({ path: childPath(path, key), message: 'required' });
  }
  if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties)
    problems.push({ path, message: `must have at most ${schema.maxProperties} entries` });
  // An object schema without properties or additionalProperties (metadata) is the API server's business.
  if (!schema.properties && !schema.additionalProperties) return;
  for (const [key, child] of Object.entries(value)) {
    if (child === undefined || child === null) continue;
    const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
    if (!childSchema) problems.push({ path: childPath(path, key), message: 'unknown field' });
    else check(childSchema, child, childPath(path, key), problems);
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
