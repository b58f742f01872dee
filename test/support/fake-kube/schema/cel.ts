/**
 * `x-kubernetes-validations` rules compiled and evaluated by a real CEL implementation (@marcbachmann/cel-js),
 * with `self` typed the way the API server types it from the schema: integer → int, number → double, string
 * with format date-time → timestamp, an object with properties → an object type whose unknown fields fail the
 * type check (`undefined field`), a map (additionalProperties) → map, int-or-string and
 * preserve-unknown-fields → dyn; a resource root also sees apiVersion, kind, metadata.name and generateName.
 * Errors are worded as cel-go words them, where the two differ only in spelling.
 */
import { Environment, type ASTNode } from '@marcbachmann/cel-js';
import { isObject, propertySchema, type Schema } from './types.ts';

interface CelErrorLike {
  message: string;
  summary?: string;
  range?: { start: number; end: number };
}

const environments = { root: new WeakMap<Schema, Environment>(), nested: new WeakMap<Schema, Environment>() };

/** The CEL environment for rules on a schema node: `self` declared with the node's type. */
function environmentFor(schema: Schema, isRoot: boolean): Environment {
  const cache = isRoot ? environments.root : environments.nested;
  let env = cache.get(schema);
  if (!env) {
    env = new Environment();
    const type = new TypeRegistry(env).typeOf(isRoot ? withObjectMeta(schema) : schema);
    env.registerVariable('self', type);
    // Transition rules compare with the previous value; they run only on updates.
    env.registerVariable('oldSelf', type);
    cache.set(schema, env);
  }
  return env;
}

/**
 * Type-checks a rule as CRD creation does; returns the compile error in the API server's words
 * (`compilation failed: ERROR: <input>:1:6: undefined field 'foo'` + the source line and a caret), if any.
 */
export function compileRule(schema: Schema, rule: string, isRoot: boolean): string | undefined {
  let result;
  try {
    result = environmentFor(schema, isRoot).check(rule);
  } catch (error) {
    return `compilation failed: ${compileMessage(rule, error as CelErrorLike)}`;
  }
  if (!result.valid) return `compilation failed: ${compileMessage(rule, result.error)}`;
  if (result.type !== 'bool' && result.type !== 'dyn') return 'cel expression must evaluate to a bool';
  return undefined;
}

/** Evaluates a rule against a value; returns true, false, or the evaluation error in cel-go's words. */
export function evaluateRule(
  schema: Schema,
  rule: string,
  value: unknown,
  isRoot: boolean,
  old?: unknown,
): boolean | string {
  const effective = isRoot ? withObjectMeta(schema) : schema;
  const variables: Record<string, unknown> = { self: toCel(effective, value) };
  if (old !== undefined) variables.oldSelf = toCel(effective, old);
  const env = environmentFor(schema, isRoot);
  try {
    const result: unknown = env.evaluate(rule, variables);
    return result === true;
  } catch (error) {
    return lowerFirst(firstError(env, env.parse(rule).ast, variables, error));
  }
}

/**
 * The error cel-go reports for a failed evaluation. Its `||` and `&&` report the error of the leftmost failing
 * operand when no operand decides the result; cel-js throws the last one's. So the operands of the failing
 * chain are evaluated again in source order, and the first error (looked into the same way) is the answer.
 */
function firstError(
  env: Environment,
  node: ASTNode,
  variables: Record<string, unknown>,
  thrown: unknown,
): string {
  if (node.op === '||' || node.op === '&&') {
    for (const operand of chainOperands(node, node.op)) {
      try {
        env.evaluate(operand.input.slice(operand.range.start, operand.range.end), variables);
      } catch (error) {
        return firstError(env, operand, variables, error);
      }
    }
  }
  if (node.op === '!_') return firstError(env, node.args, variables, thrown);
  return (thrown as CelErrorLike).summary ?? (thrown as Error).message;
}

function chainOperands(node: ASTNode, op: '||' | '&&'): ASTNode[] {
  if (node.op !== op) return [node];
  const [left, right] = node.args;
  return [...chainOperands(left, op), ...chainOperands(right, op)];
}

function compileMessage(rule: string, error: CelErrorLike | undefined): string {
  const summary = error?.summary ?? error?.message ?? 'invalid expression';
  const offset = error?.range?.start ?? 0;
  const before = rule.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const source = rule.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${celGoWording(summary)}\n | ${source}\n | ${'.'.repeat(column)}^`;
}

/** cel-js says "No such key: foo" where the cel-go checker says "undefined field 'foo'". */
function celGoWording(summary: string): string {
  const missing = /^No such key: (.+)$/.exec(summary);
  if (missing) return `undefined field '${missing[1]}'`;
  return lowerFirst(summary);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** A resource root's rules see apiVersion, kind and metadata.name / generateName (not the rest of metadata). */
function withObjectMeta(schema: Schema): Schema {
  return {
    ...schema,
    properties: {
      ...schema.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: {
        type: 'object',
        properties: { name: { type: 'string' }, generateName: { type: 'string' } },
      },
    },
  };
}

/** Registers one CEL object type per object schema with properties. */
class TypeRegistry {
  private readonly env: Environment;
  private readonly names = new Map<Schema, string>();

  constructor(env: Environment) {
    this.env = env;
  }

  typeOf(schema: Schema): string {
    if (schema['x-kubernetes-int-or-string']) return 'dyn';
    switch (schema.type) {
      case 'string':
        // cel-js spells the timestamp type by its protobuf name inside object types.
        if (schema.format === 'date-time') return 'google.protobuf.Timestamp';
        if (schema.format === 'duration') return 'google.protobuf.Duration';
        return 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${schema.items ? this.typeOf(schema.items) : 'dyn'}>`;
      case 'object':
        if (typeof schema.additionalProperties === 'object')
          return `map<string, ${this.typeOf(schema.additionalProperties)}>`;
        if (!schema.properties || schema['x-kubernetes-preserve-unknown-fields'])
          return schema.properties ? 'dyn' : 'map<string, dyn>';
        return this.objectType(schema, schema.properties);
      default:
        return 'dyn';
    }
  }

  private objectType(schema: Schema, properties: Record<string, Schema>): string {
    const known = this.names.get(schema);
    if (known) return known;
    const name = `Object${this.names.size + 1}`;
    this.names.set(schema, name);
    const fields = Object.fromEntries(
      Object.entries(properties).map(([key, child]) => [key, this.typeOf(child)]),
    );
    this.env.registerType(name, { fields });
    return name;
  }
}

/** A JSON value as the API server hands it to CEL: ints as int64 (bigint here), date-times as timestamps. */
export function toCel(schema: Schema, value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (schema['x-kubernetes-int-or-string'])
    return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : value;
  switch (schema.type) {
    case 'integer':
      return typeof value === 'number' ? BigInt(value) : value;
    case 'string':
      return schema.format === 'date-time' && typeof value === 'string' ? new Date(value) : value;
    case 'array': {
      const items = schema.items;
      return Array.isArray(value) && items ? value.map((item) => toCel(items, item)) : value;
    }
    case 'object': {
      if (!isObject(value)) return value;
      const converted: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        // A null field is absent to CEL (`has()` is false), as after the server's pruning of nulls.
        if (child === undefined || child === null) continue;
        const childSchema = propertySchema(schema, key);
        if (childSchema) converted[key] = toCel(childSchema, child);
        else if (!schema.properties || schema['x-kubernetes-preserve-unknown-fields']) converted[key] = child;
      }
      return converted;
    }
    default:
      return value;
  }
}
