/**
 * The checks the apiextensions server makes on a CRD version's openAPIV3Schema before anything else: a
 * structural schema (every node typed unless int-or-string or preserve-unknown-fields, arrays with items, no
 * additionalProperties beside properties or at the root, root metadata restricted to name and generateName,
 * valid patterns) and `x-kubernetes-validations` that compile, with valid messages, reasons and field paths.
 */
import { compileRule } from './cel.ts';
import type { FieldError } from './field-errors.ts';
import { compilePattern } from './validate.ts';
import type { Schema, ValidationRule } from './types.ts';

type Level = 'root' | 'items' | 'field';

const REASONS = ['FieldValueRequired', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueDuplicate'];

const EMPTY_TYPE: Record<Level, string> = {
  root: 'must not be empty at the root',
  items: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/** Structural-schema and rule-compilation errors of a schema whose path is `path`. */
export function validateSchema(
  schema: Schema,
  path: string,
): { structural: FieldError[]; rules: FieldError[] } {
  const structural: FieldError[] = [];
  const rules: FieldError[] = [];
  walk(schema, 'root', path, structural, rules);
  // The server sorts structural errors by their text (its schema maps have no order).
  structural.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  return { structural, rules };
}

function walk(
  schema: Schema,
  level: Level,
  path: string,
  structural: FieldError[],
  rules: FieldError[],
): void {
  const untyped = schema.type === undefined || schema.type === '';
  if (untyped && !schema['x-kubernetes-int-or-string'] && !schema['x-kubernetes-preserve-unknown-fields'])
    structural.push({ type: 'FieldValueRequired', field: `${path}.type`, detail: EMPTY_TYPE[level] });
  if (level === 'root' && !untyped && schema.type !== 'object')
    structural.push({
      type: 'FieldValueInvalid',
      field: `${path}.type`,
      value: schema.type,
      detail: 'must be object at the root',
    });
  if (schema.type === 'array' && !schema.items)
    structural.push({ type: 'FieldValueRequired', field: `${path}.items`, detail: 'must be specified' });
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
    if (level === 'root')
      structural.push({
        type: 'FieldValueForbidden',
        field: `${path}.additionalProperties`,
        detail: 'must not be used at the root',
      });
    if (schema.properties && Object.keys(schema.properties).length > 0)
      structural.push({
        type: 'FieldValueForbidden',
        field: `${path}.additionalProperties`,
        detail: 'additionalProperties and properties are mutual exclusive',
      });
  }
  if (schema.pattern !== undefined && compilePattern(schema.pattern) === null)
    structural.push({
      type: 'FieldValueInvalid',
      field: `${path}.pattern`,
      value: schema.pattern,
      detail: 'must be a valid regular expression',
    });
  if (level === 'root' || schema['x-kubernetes-embedded-resource'])
    checkMetadata(schema, path, level, structural);
  checkListType(schema, path, structural);
  checkRules(schema, level === 'root' || schema['x-kubernetes-embedded-resource'] === true, path, rules);
  if (schema.items) walk(schema.items, 'items', `${path}.items`, structural, rules);
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    walk(child, 'field', `${path}.properties[${key}]`, structural, rules);
  if (typeof schema.additionalProperties === 'object')
    walk(schema.additionalProperties, 'field', `${path}.additionalProperties`, structural, rules);
}

function checkMetadata(schema: Schema, path: string, level: Level, errors: FieldError[]): void {
  const metadata = schema.properties?.metadata;
  if (!metadata) return;
  const at = `${path}.properties[metadata]`;
  if (metadata.type !== 'object')
    errors.push({
      type: 'FieldValueInvalid',
      field: `${at}.type`,
      value: metadata.type ?? '',
      detail: 'must be object',
    });
  if (level !== 'root') return;
  const { type: _type, description: _description, properties, ...rest } = metadata;
  const names = Object.keys(properties ?? {});
  const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
  if (!onlyNames || Object.keys(rest).length > 0)
    errors.push({
      type: 'FieldValueForbidden',
      field: at,
      detail:
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
    });
}

function checkListType(schema: Schema, path: string, errors: FieldError[]): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === undefined) return;
  if (!['atomic', 'set', 'map'].includes(listType)) {
    errors.push({
      type: 'FieldValueNotSupported',
      field: `${path}.x-kubernetes-list-type`,
      value: listType,
      detail: 'supported values: "atomic", "set", "map"',
    });
    return;
  }
  if (listType !== 'map') return;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length === 0)
    errors.push({
      type: 'FieldValueRequired',
      field: `${path}.x-kubernetes-list-map-keys`,
      detail: 'must not be empty if x-kubernetes-list-type is map',
    });
  if (schema.items && schema.items.type !== 'object')
    errors.push({
      type: 'FieldValueInvalid',
      field: `${path}.items.type`,
      value: schema.items.type ?? '',
      detail: "must be object if parent array's x-kubernetes-list-type is map",
    });
  for (const key of keys) {
    const property = schema.items?.properties?.[key];
    if (property && !(schema.items?.required ?? []).includes(key) && property.default === undefined)
      errors.push({
        type: 'FieldValueRequired',
        field: `${path}.items.properties[${key}]`,
        detail:
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      });
  }
}

/** Go's `%#v` of the rule the server refuses, as its message prints it. */
function printRule(rule: ValidationRule): string {
  const pointer = (value: unknown, type: string) =>
    value === undefined ? `(*${type})(nil)` : `(*${type})(0xc000a1b2c0)`;
  return (
    `apiextensions.ValidationRule{Rule:${JSON.stringify(rule.rule)}, Message:${JSON.stringify(rule.message ?? '')}, ` +
    `MessageExpression:${JSON.stringify(rule.messageExpression ?? '')}, ` +
    `Reason:${pointer(rule.reason, 'apiextensions.FieldValueErrorReason')}, FieldPath:${JSON.stringify(rule.fieldPath ?? '')}, ` +
    `OptionalOldSelf:${pointer(rule.optionalOldSelf, 'bool')}}`
  );
}

function checkRules(schema: Schema, isRoot: boolean, path: string, errors: FieldError[]): void {
  (schema['x-kubernetes-validations'] ?? []).forEach((rule, index) => {
    const at = `${path}.x-kubernetes-validations[${index}]`;
    if (!rule.rule?.trim()) {
      errors.push({ type: 'FieldValueRequired', field: `${at}.rule`, detail: '' });
      return;
    }
    const problem = compileRule(schema, rule.rule, isRoot);
    if (problem)
      errors.push({
        type: 'FieldValueInvalid',
        field: `${at}.rule`,
        printedValue: printRule(rule),
        detail: problem,
      });
    if (rule.message !== undefined && /[\n]/.test(rule.message))
      errors.push({
        type: 'FieldValueInvalid',
        field: `${at}.message`,
        value: rule.message,
        detail: 'message must not contain line breaks',
      });
    if (rule.reason !== undefined && !REASONS.includes(rule.reason))
      errors.push({
        type: 'FieldValueNotSupported',
        field: `${at}.reason`,
        value: rule.reason,
        detail: `supported values: ${REASONS.map((r) => JSON.stringify(r)).join(', ')}`,
      });
    if (rule.fieldPath !== undefined && !fieldPathExists(schema, rule.fieldPath))
      errors.push({
        type: 'FieldValueInvalid',
        field: `${at}.fieldPath`,
        value: rule.fieldPath,
        detail: 'fieldPath must be a valid path: does not refer to a valid field',
      });
  });
}

/** A rule's fieldPath (`.a.b`, `.m['key']`) must name a field of the schema it sits on. */
function fieldPathExists(schema: Schema, fieldPath: string): boolean {
  const steps = fieldPath.match(/\.[^.[\]]+|\['(?:[^'\\]|\\.)*'\]/g) ?? [];
  if (steps.join('') !== fieldPath) return false;
  let node: Schema | undefined = schema;
  for (const step of steps) {
    const key = step.startsWith('.') ? step.slice(1) : step.slice(2, -2);
    if (!node) return false;
    if (node.properties) node = node.properties[key];
    else if (typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else return false;
  }
  return node !== undefined;
}
