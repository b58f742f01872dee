import { Environment } from '@marcbachmann/cel-js';
import { applyDefaults } from '../defaults.ts';
import {
  childPath,
  isPlainObject,
  type JsonSchema,
  type SchemaProblem,
  type ValidationRule,
} from '../json-schema.ts';
import { checkStructure } from '../structural.ts';

/**
 * Test support (uses a devDependency): what the API server does with an AuthConfig on create, minus
 * storage. Defaults, then the structural schema, then every `x-kubernetes-validations` rule evaluated by a
 * real CEL implementation (@marcbachmann/cel-js) with `self` typed the way Kubernetes types it (integer →
 * int, number → double, date-time → timestamp, objects with properties → typed objects, so a misspelt field
 * fails the type check as it fails CRD creation). The exact rule text of the CRD is what runs.
 *
 * Not modelled: the CEL cost budget (the schema bounds every string and list a rule walks, which is what the
 * budget needs), transition rules (none are used), and CEL libraries beyond the standard and strings ones.
 */

export interface RuleFailure extends SchemaProblem {
  rule: string;
}

export interface RuleLocation {
  /** Where the rule sits, e.g. `spec`, `spec.webauthn`, `spec.env[]`. */
  path: string;
  schema: JsonSchema;
  rule: ValidationRule;
  isRoot: boolean;
}

/** Every rule in a schema, with the schema it is scoped to. */
export function ruleLocations(schema: JsonSchema, path = '', isRoot = true): RuleLocation[] {
  const here = (schema['x-kubernetes-validations'] ?? []).map((rule) => ({ path, schema, rule, isRoot }));
  const below = [
    ...Object.entries(schema.properties ?? {}).flatMap(([key, child]) =>
      ruleLocations(child, childPath(path, key), false),
    ),
    ...(schema.items ? ruleLocations(schema.items, `${path}[]`, false) : []),
    ...(schema.additionalProperties ? ruleLocations(schema.additionalProperties, `${path}{}`, false) : []),
  ];
  return [...here, ...below];
}

const environments = {
  root: new WeakMap<JsonSchema, Environment>(),
  nested: new WeakMap<JsonSchema, Environment>(),
};

/** The CEL environment of a rule location: `self` declared with the location's schema type. */
export function environmentFor(schema: JsonSchema, isRoot: boolean): Environment {
  const cache = isRoot ? environments.root : environments.nested;
  let env = cache.get(schema);
  if (!env) {
    env = new Environment();
    env.registerVariable('self', new TypeRegistry(env).typeOf(isRoot ? withObjectMeta(schema) : schema));
    cache.set(schema, env);
  }
  return env;
}

/** Type-checks a rule as the API server does when the CRD is created; returns the error, if any. */
export function typeCheck(location: RuleLocation): string | undefined {
  const result = environmentFor(location.schema, location.isRoot).check(location.rule.rule);
  if (!result.valid) return result.error?.message ?? 'invalid';
  if (result.type !== 'bool') return `returns ${result.type}, not bool`;
  return undefined;
}

/** Evaluates one rule against a value (already defaulted), as the API server would. */
export function evaluateRule(schema: JsonSchema, rule: string, value: unknown, isRoot = false): boolean {
  const self = toCel(isRoot ? withObjectMeta(schema) : schema, value);
  const result: unknown = environmentFor(schema, isRoot).evaluate(rule, { self });
  if (typeof result !== 'boolean') throw new Error(`rule returned ${typeof result}: ${rule}`);
  return result;
}

/** Evaluates every rule at every location the value reaches; failures carry the rule's message. */
export function evaluateRules(schema: JsonSchema, value: unknown, path = '', isRoot = true): RuleFailure[] {
  if (value === undefined || value === null) return [];
  const failures: RuleFailure[] = [];
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    let passed: boolean;
    try {
      passed = evaluateRule(schema, rule.rule, value, isRoot);
    } catch (err) {
      failures.push({ path, rule: rule.rule, message: `rule error: ${(err as Error).message}` });
      continue;
    }
    if (!passed)
      failures.push({ path: path + (rule.fieldPath ?? ''), rule: rule.rule, message: rule.message });
  }
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    value.forEach((item, index) =>
      failures.push(...evaluateRules(items, item, childPath(path, index), false)),
    );
  } else if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
      if (childSchema) failures.push(...evaluateRules(childSchema, child, childPath(path, key), false));
    }
  }
  return failures;
}

export type Admission = { ok: true; object: unknown } | { ok: false; problems: SchemaProblem[] };

/** Create-time admission of a whole object: defaults, structural schema, then CEL rules. */
export function admit(schema: JsonSchema, object: unknown): Admission {
  const defaulted = applyDefaults(schema, object);
  const structural = checkStructure(schema, defaulted);
  if (structural.length > 0) return { ok: false, problems: structural };
  const failures = evaluateRules(schema, defaulted);
  if (failures.length > 0)
    return { ok: false, problems: failures.map(({ path, message }) => ({ path, message })) };
  return { ok: true, object: defaulted };
}

/** Kubernetes exposes apiVersion, kind, metadata.name and metadata.generateName to root rules. */
function withObjectMeta(schema: JsonSchema): JsonSchema {
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

/** Registers one CEL object type per object schema with properties, children first. */
class TypeRegistry {
  private readonly env: Environment;
  private readonly names = new Map<JsonSchema, string>();

  constructor(env: Environment) {
    this.env = env;
  }

  typeOf(schema: JsonSchema): string {
    switch (schema.type) {
      case 'string':
        // cel-js spells the timestamp type by its protobuf name inside object types.
        return schema.format === 'date-time' ? 'google.protobuf.Timestamp' : 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${schema.items ? this.typeOf(schema.items) : 'dyn'}>`;
      case 'object':
        if (schema.additionalProperties) return `map<string, ${this.typeOf(schema.additionalProperties)}>`;
        if (!schema.properties) return 'map<string, dyn>';
        return this.objectType(schema, schema.properties);
    }
  }

  private objectType(schema: JsonSchema, properties: Record<string, JsonSchema>): string {
    const known = this.names.get(schema);
    if (known) return known;
    const fields = Object.fromEntries(
      Object.entries(properties).map(([key, child]) => [key, this.typeOf(child)]),
    );
    const name = `Object${this.names.size + 1}`;
    this.names.set(schema, name);
    this.env.registerType(name, { fields });
    return name;
  }
}

/** A JSON value as Kubernetes hands it to CEL: ints as int64 (bigint here), date-times as timestamps. */
function toCel(schema: JsonSchema, value: unknown): unknown {
  if (value === undefined || value === null) return value;
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
      if (!isPlainObject(value)) return value;
      const converted: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(value)) {
        if (child === undefined || child === null) continue;
        const childSchema = schema.properties?.[key] ?? schema.additionalProperties;
        // Fields the schema does not declare are not visible to CEL (the server prunes them).
        if (childSchema) converted[key] = toCel(childSchema, child);
        else if (!schema.properties) converted[key] = child;
      }
      return converted;
    }
    default:
      return value;
  }
}
