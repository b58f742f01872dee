/**
 * Near-valid values from a JSON Schema (what `z.toJSONSchema` gives for a route's zod schema, or an
 * operation's schema in an OpenAPI document): values that mostly pass validation, so that mutated ones
 * reach handlers and SQL instead of stopping at the first type check.
 */
import fc from 'fast-check';
import type { FuzzJson } from './json-text.ts';

export type JsonSchema = { readonly [keyword: string]: unknown };

/** What values drawn from a schema may point at: ids that exist, a URL that answers. */
export interface ValueContext {
  /** Ids of rows that exist (used for `format: uuid` half of the time). */
  readonly ids: readonly string[];
  /** Ids most likely to be meant here (a path parameter's table), drawn most often when given. */
  readonly preferredIds?: readonly string[];
  /** A URL on loopback that accepts any request (for `format: uri`). */
  readonly sinkUrl: string;
}

const MAX_DEPTH = 8;

/** An arbitrary of values that should satisfy `schema` (`root` resolves `$ref`s). */
export function valuesOf(
  schema: JsonSchema,
  context: ValueContext,
  root: JsonSchema = schema,
  depth = 0,
): fc.Arbitrary<FuzzJson> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  const next = (inner: JsonSchema) => valuesOf(inner, context, root, depth + 1);
  if (typeof schema.$ref === 'string') return next(resolveRef(root, schema.$ref));
  if ('const' in schema) return fc.constant(schema.const as FuzzJson);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as FuzzJson[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map(next));
  if (Array.isArray(schema.allOf)) return next(mergeAll(schema.allOf as JsonSchema[]));
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : (schema.type as string | undefined);
  switch (type) {
    case 'object':
      return objectOf(schema, next);
    case 'array':
      return fc.array(next((schema.items as JsonSchema | undefined) ?? {}), {
        minLength: numberOr(schema.minItems, 0),
        maxLength: Math.min(numberOr(schema.maxItems, 4), 4),
      });
    case 'string':
      return stringOf(schema, context);
    case 'integer':
      return fc.integer(bounds(schema, true));
    case 'number':
      return fc.double({ ...bounds(schema, false), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<FuzzJson>;
  }
}

function objectOf(schema: JsonSchema, next: (inner: JsonSchema) => fc.Arbitrary<FuzzJson>) {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model: Record<string, fc.Arbitrary<FuzzJson>> = {};
  for (const [name, inner] of Object.entries(properties)) model[name] = next(inner);
  return fc.record(model, { requiredKeys: [...required].filter((key) => key in model) }) as fc.Arbitrary<{
    [key: string]: FuzzJson;
  }>;
}

function stringOf(schema: JsonSchema, context: ValueContext): fc.Arbitrary<string> {
  const minLength = numberOr(schema.minLength, 0);
  const maxLength = Math.min(numberOr(schema.maxLength, 40), 200);
  switch (schema.format) {
    case 'uuid':
      return uuids(context);
    case 'email':
      return fc
        .tuple(fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom('example.com', 'example.org'))
        .map(([local, domain]) => `${local}@${domain}`);
    case 'uri':
      return fc.stringMatching(/^[a-z0-9]{0,8}$/).map((path) => `${context.sinkUrl}/${path}`);
    case 'date-time':
      return fc
        .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString());
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc
        .stringMatching(new RegExp(schema.pattern))
        .map((text) => text.slice(0, Math.max(maxLength, minLength)));
    } catch {
      // A pattern fast-check cannot generate from: fall back to plain text of the right length.
    }
  }
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
}

function uuids(context: ValueContext): fc.Arbitrary<string> {
  const choices: Array<fc.WeightedArbitrary<string>> = [{ weight: 1, arbitrary: fc.uuid({ version: 4 }) }];
  if (context.ids.length > 0) choices.push({ weight: 1, arbitrary: fc.constantFrom(...context.ids) });
  if (context.preferredIds?.length)
    choices.push({ weight: 3, arbitrary: fc.constantFrom(...context.preferredIds) });
  return fc.oneof(...choices);
}

function bounds(schema: JsonSchema, integer: boolean): { min?: number; max?: number } {
  const limit = integer ? 2 ** 31 - 1 : Number.MAX_VALUE;
  const min = Math.max(numberOr(schema.minimum, -limit), -limit);
  const max = Math.min(numberOr(schema.maximum, limit), limit);
  return { min, max: Math.max(min, max) };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith('#/')) return {};
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return (node ?? {}) as JsonSchema;
}

function mergeAll(schemas: JsonSchema[]): JsonSchema {
  const merged: Record<string, unknown> = {};
  for (const schema of schemas) {
    for (const [key, value] of Object.entries(schema)) {
      merged[key] =
        key === 'properties' || key === 'required'
          ? Array.isArray(value)
            ? [...((merged[key] as unknown[] | undefined) ?? []), ...(value as unknown[])]
            : { ...(merged[key] as object), ...(value as object) }
          : value;
    }
  }
  return merged;
}
