/**
 * `x-kubernetes-validations` evaluated over a value as the API server's CEL validator walks it: the rules of
 * each node run with `self` bound to the node's value (absent and null values are skipped), then its list
 * items, declared properties and map values. A false rule reports its message (or `failed rule: <rule>`) at
 * the node plus its `fieldPath`, with its `reason`; an evaluation error (`no such key: x`) reports
 * `<error> evaluating rule: <message>` at the node. Transition rules (`oldSelf`) run only on updates.
 */
import { isDeepStrictEqual } from 'node:util';
import { evaluateRule } from './cel.ts';
import type { FieldError } from './field-errors.ts';
import { isObject, type Schema, type ValidationRule } from './types.ts';

export interface RuleContext {
  /** The node is a resource root (its rules also see apiVersion, kind and metadata names). */
  isRoot: boolean;
  /** The previous value at this node on an update, when it can be correlated; undefined on create. */
  old: unknown;
  /**
   * Ratcheting, the API server's default since 1.30: on an update, rules that do not read oldSelf are not run
   * on a value left as it was, so a write (a status write above all) never fails on what it did not change.
   */
  ratchet?: boolean;
}

const OLD_SELF = /\boldSelf\b/;

/** Path joins as `field.Path` prints them: `.child`, `[index]`, `[mapKey]`. */
const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);

export function validateRules(
  schema: Schema,
  value: unknown,
  path: string,
  context: RuleContext,
): FieldError[] {
  if (value === undefined || value === null) return [];
  const errors = nodeRules(schema, value, path, context);
  if (Array.isArray(value) && schema.items) {
    const items = schema.items;
    value.forEach((item, index) =>
      errors.push(
        ...validateRules(items, item, `${path}[${index}]`, {
          isRoot: items['x-kubernetes-embedded-resource'] === true,
          old: undefined,
          ratchet: context.ratchet,
        }),
      ),
    );
  } else if (isObject(value)) {
    const old = isObject(context.old) ? context.old : undefined;
    for (const [key, item] of Object.entries(value)) {
      const declared = schema.properties?.[key];
      if (declared) {
        errors.push(
          ...validateRules(declared, item, child(path, key), {
            isRoot: declared['x-kubernetes-embedded-resource'] === true,
            old: old?.[key],
            ratchet: context.ratchet,
          }),
        );
      } else if (typeof schema.additionalProperties === 'object') {
        const values = schema.additionalProperties;
        errors.push(
          ...validateRules(values, item, `${path}[${key}]`, {
            isRoot: false,
            old: old?.[key],
            ratchet: context.ratchet,
          }),
        );
      }
    }
  }
  return errors;
}

function nodeRules(schema: Schema, value: unknown, path: string, context: RuleContext): FieldError[] {
  const errors: FieldError[] = [];
  const at = path || '<nil>';
  const type = schema.type ?? '';
  const unchanged =
    context.ratchet === true && context.old !== undefined && isDeepStrictEqual(context.old, value);
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    const transition = OLD_SELF.test(rule.rule);
    if (transition && (context.old === undefined || context.old === null)) continue;
    if (unchanged && !transition) continue;
    const outcome = evaluateRule(
      schema,
      rule.rule,
      value,
      context.isRoot,
      transition ? context.old : undefined,
    );
    if (outcome === true) continue;
    if (typeof outcome === 'string') {
      errors.push({
        type: 'FieldValueInvalid',
        field: at,
        value: type,
        detail: `${outcome} evaluating rule: ${ruleText(rule)}`,
      });
      continue;
    }
    const target = rule.fieldPath ? child(path, rule.fieldPath.replace(/^\./, '')) || '<nil>' : at;
    errors.push(failure(rule, target, type));
  }
  return errors;
}

function ruleText(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : rule.rule.trim();
}

function failure(rule: ValidationRule, field: string, type: string): FieldError {
  const detail = rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleText(rule)}`;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return { type: 'FieldValueForbidden', field, detail };
    case 'FieldValueRequired':
      return { type: 'FieldValueRequired', field, detail };
    case 'FieldValueDuplicate':
      return { type: 'FieldValueDuplicate', field, value: type, detail: '' };
    default:
      return { type: 'FieldValueInvalid', field, value: type, detail };
  }
}
