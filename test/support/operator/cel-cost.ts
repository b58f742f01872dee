import { parse } from '@marcbachmann/cel-js';
import type { JsonSchema } from '../../../operator/src/api/json-schema.ts';

/**
 * Test support: an upper bound of what the API server's static cost estimate gives each CEL rule of a CRD,
 * and the CRD's total. The server refuses a CRD when one rule's estimate exceeds {@link RULE_COST_LIMIT} or
 * the sum over all rules, each multiplied by how many times it can run in one object (the product of the
 * `maxItems`/`maxProperties` of the lists and maps above it), exceeds {@link CRD_COST_LIMIT}; an unbounded
 * string or list a rule walks makes the estimate huge.
 *
 * The model follows the shape of the server's (every node costs 1; walking a string costs per character;
 * a comprehension costs its body once per element of the largest list it can range over; `in` a list costs
 * one comparison per element), but charges a whole unit per character where the server charges a tenth, and
 * adds both sides of every operator. So it only ever overestimates: a rule under the limit here is under it
 * on a real server.
 */

/** Per rule: the API server's `StaticEstimatedCostLimit`. */
export const RULE_COST_LIMIT = 10_000_000;
/** Per CRD: the API server's `StaticEstimatedCRDCostLimit`. */
export const CRD_COST_LIMIT = 100_000_000;
/** What an unbounded size counts as: large enough to break either limit. */
export const UNBOUNDED = 2 ** 40;

export interface RuleCost {
  path: string;
  rule: string;
  /** Upper bound of one evaluation. */
  cost: number;
  /** How many times the rule can run in one object. */
  cardinality: number;
}

interface Node {
  op: string;
  args: unknown;
}

/** What an expression can be, as far as cost goes: its size bound and, when known, its schema. */
interface Shape {
  size: number;
  schema?: JsonSchema;
  /** For a list literal: the size of its largest element. */
  itemSize?: number;
}

/** The cost of every rule in a CRD schema, with where it sits and how often it can run. */
export function ruleCosts(schema: JsonSchema, path = '', cardinality = 1): RuleCost[] {
  const here = (schema['x-kubernetes-validations'] ?? []).map(({ rule }) => ({
    path,
    rule,
    cost: estimate(
      parse(rule).ast as Node,
      new Map([['self', path === '' ? withObjectMeta(schema) : schema]]),
    ).cost,
    cardinality,
  }));
  const properties = Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
    ruleCosts(child, path === '' ? key : `${path}.${key}`, cardinality),
  );
  const items = schema.items
    ? ruleCosts(schema.items, `${path}[]`, cardinality * (schema.maxItems ?? UNBOUNDED))
    : [];
  const values = schema.additionalProperties
    ? ruleCosts(schema.additionalProperties, `${path}{}`, cardinality * (schema.maxProperties ?? UNBOUNDED))
    : [];
  return [...here, ...properties, ...items, ...values];
}

type Scope = Map<string, JsonSchema | undefined>;

function estimate(node: Node, scope: Scope): { cost: number; shape: Shape } {
  const args = node.args;
  switch (node.op) {
    case 'value':
      return { cost: 0, shape: { size: typeof args === 'string' ? args.length : 1 } };
    case 'id':
      return { cost: 1, shape: shapeOf(scope.get(args as string)) };
    case '.':
    case '?.': {
      const [target, field] = args as [Node, string];
      const inner = estimate(target, scope);
      return { cost: inner.cost + 1, shape: shapeOf(inner.shape.schema?.properties?.[field]) };
    }
    case 'rcall':
      return receiverCall(args as [string, Node, Node[]], scope);
    case 'call': {
      const [name, list] = args as [string, Node[]];
      if (name === 'has') return { cost: 1, shape: { size: 1 } };
      return call(list.map((arg) => estimate(arg, scope)));
    }
    case 'in': {
      const [needle, haystack] = (args as Node[]).map((arg) => estimate(arg, scope));
      if (!needle || !haystack) throw new Error('malformed in');
      const per = Math.max(1, needle.shape.size, itemShape(haystack.shape).size);
      return { cost: needle.cost + haystack.cost + haystack.shape.size * per, shape: { size: 1 } };
    }
    case 'list': {
      const items = (args as Node[]).map((arg) => estimate(arg, scope));
      const itemSize = Math.max(1, ...items.map((item) => item.shape.size));
      return { cost: 1 + sum(items.map((item) => item.cost)), shape: { size: items.length, itemSize } };
    }
    default: {
      // Operators (&&, ||, !, ==, <, +, ?:, [] ...): both sides, plus a walk of the longest operand.
      const operands = (Array.isArray(args) ? args : [args]) as Node[];
      return call(operands.filter(isNode).map((arg) => estimate(arg, scope)));
    }
  }
}

/** A function or operator: its operands, plus one step per character or element of its largest operand. */
function call(operands: Array<{ cost: number; shape: Shape }>): { cost: number; shape: Shape } {
  const largest = Math.max(1, ...operands.map((operand) => operand.shape.size));
  return { cost: sum(operands.map((operand) => operand.cost)) + 1 + largest, shape: { size: largest } };
}

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

function receiverCall(
  [name, target, list]: [string, Node, Node[]],
  scope: Scope,
): {
  cost: number;
  shape: Shape;
} {
  const receiver = estimate(target, scope);
  if (!MACROS.has(name)) return call([receiver, ...list.map((arg) => estimate(arg, scope))]);
  const [variable, ...body] = list;
  if (variable?.op !== 'id' || body.length === 0) throw new Error(`malformed ${name}`);
  const inner: Scope = new Map(scope).set(variable.args as string, itemShape(receiver.shape).schema);
  const perElement = sum(body.map((expression) => estimate(expression, inner).cost)) + 2;
  return {
    cost: receiver.cost + receiver.shape.size * perElement,
    shape: { size: receiver.shape.size },
  };
}

function shapeOf(schema: JsonSchema | undefined): Shape {
  if (!schema) return { size: UNBOUNDED };
  if (schema.type === 'string')
    return {
      size: schema.enum ? Math.max(...schema.enum.map((v) => v.length)) : (schema.maxLength ?? UNBOUNDED),
      schema,
    };
  if (schema.type === 'array') return { size: schema.maxItems ?? UNBOUNDED, schema };
  if (schema.type === 'object' && schema.additionalProperties)
    return { size: schema.maxProperties ?? UNBOUNDED, schema };
  return { size: 1, schema };
}

function itemShape(shape: Shape): Shape {
  if (shape.itemSize !== undefined) return { size: shape.itemSize };
  return shapeOf(shape.schema?.items ?? shape.schema?.additionalProperties);
}

/** Root rules also see `metadata.name` and `generateName`, which the server bounds at 253 characters. */
function withObjectMeta(schema: JsonSchema): JsonSchema {
  const name: JsonSchema = { type: 'string', maxLength: 253 };
  const metadata: JsonSchema = { type: 'object', properties: { name, generateName: name } };
  return { ...schema, properties: { ...schema.properties, metadata } };
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'op' in value;
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
