import { compileRule, evaluateRule as evaluateCel } from '../fake-kube/schema/cel.ts';
import type { Schema } from '../fake-kube/schema/types.ts';
import { applyDefaults } from '../../../operator/src/api/defaults.ts';
import { isJsonObject } from '../../../operator/src/api/json.ts';
import {
  childPath,
  type JsonSchema,
  type SchemaProblem,
  type ValidationRule,
} from '../../../operator/src/api/json-schema.ts';
import { checkStructure } from '../../../operator/src/api/structural.ts';

/**
 * Test support (uses a devDependency): what the API server does with an AuthConfig on create, minus
 * storage. Defaults, then the structural schema, then every `x-kubernetes-validations` rule evaluated by a
 * real CEL implementation (@marcbachmann/cel-js) with `self` typed the way Kubernetes types it (integer →
 * int, number → double, date-time → timestamp, objects with properties → typed objects, so a misspelt field
 * fails the type check as it fails CRD creation). The exact rule text of the CRD is what runs.
 *
 * The CEL typing and evaluation are the fake API server's (test/support/fake-kube/schema/cel.ts), so the
 * operator's rule tests and the fake that CI's suites run against read the rules the same way.
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

/** Type-checks a rule as the API server does when the CRD is created; returns the error, if any. */
export function typeCheck(location: RuleLocation): string | undefined {
  return compileRule(asCrdSchema(location.schema), location.rule.rule, location.isRoot);
}

/** Evaluates one rule against a value (already defaulted), as the API server would; throws on a CEL error. */
export function evaluateRule(schema: JsonSchema, rule: string, value: unknown, isRoot = false): boolean {
  const result = evaluateCel(asCrdSchema(schema), rule, value, isRoot);
  if (typeof result === 'string') throw new Error(result);
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
  } else if (isJsonObject(value)) {
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

/**
 * The operator's schema type is the subset of the CRD schema it uses, without the open index signature the
 * fake's generic type has; the shapes agree on every keyword the operator writes.
 */
function asCrdSchema(schema: JsonSchema): Schema {
  return schema as unknown as Schema;
}
