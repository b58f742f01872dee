/**
 * Admission of custom objects against their CRD version's schema, in the API server's order: unknown fields
 * pruned (with a warning, or refused under `fieldValidation=Strict`), defaults applied, then the OpenAPI schema
 * and list-type invariants, then the CEL rules unless a blocking schema error (type, required, enum, size) means
 * the object lacks the shape the rules were written for. Errors are one 422 Invalid `Status`.
 */
import { KubeError } from '../status.ts';
import type { KubeObject, WriteContext } from '../types.ts';
import { applyDefaults } from './defaults.ts';
import { invalid, type FieldError } from './field-errors.ts';
import { validateListTypes } from './list-types.ts';
import { prune } from './prune.ts';
import { validateRules } from './rules.ts';
import type { Schema } from './types.ts';
import { validateValue } from './validate.ts';

const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** The `admit` strategy of one served version of a custom resource. */
export function customObjectAdmission(
  kind: string,
  group: string,
  version: string,
  schema: Schema | undefined,
): (next: KubeObject, existing: KubeObject | undefined, write: WriteContext) => KubeObject {
  return (next, existing, write) => {
    if (!schema) return next;
    const object = pruneUnknown(kind, version, schema, next, write);
    const defaulted = applyDefaults(schema, object) as KubeObject;
    const errors = validateObject(schema, defaulted, existing);
    if (errors.length > 0) throw invalid({ group, kind }, defaulted.metadata.name ?? '', errors);
    return defaulted;
  };
}

function pruneUnknown(
  kind: string,
  version: string,
  schema: Schema,
  object: KubeObject,
  write: WriteContext,
) {
  const { value, pruned } = prune(schema, object);
  if (pruned.length === 0 || write.fieldValidation === 'Ignore') return value as KubeObject;
  const unknown = pruned.map((path) => `unknown field ${JSON.stringify(path)}`);
  if (write.fieldValidation === 'Strict') {
    throw new KubeError(
      400,
      `${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${unknown.join(', ')}`,
      'BadRequest',
    );
  }
  write.warnings.push(...unknown);
  return value as KubeObject;
}

function validateObject(schema: Schema, object: KubeObject, existing: KubeObject | undefined): FieldError[] {
  const errors = [...validateValue(schema, withoutMeta(object), ''), ...validateListTypes(schema, object)];
  if (!schema['x-kubernetes-validations'] && !hasRules(schema)) return errors;
  if (errors.some((error) => BLOCKING.has(error.type))) {
    return [
      ...errors,
      {
        type: 'FieldValueInvalid',
        field: '<nil>',
        value: null,
        detail:
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  }
  // The stored object is read back defaulted, as the server reads it from storage, before it is compared.
  const old = existing === undefined ? undefined : applyDefaults(schema, existing);
  return [
    ...errors,
    ...validateRules(schema, object, '', { isRoot: true, old, ratchet: existing !== undefined }),
  ];
}

/** metadata is the server's business (checked as ObjectMeta), not the schema's. */
function withoutMeta(object: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = object;
  return rest;
}

function hasRules(schema: Schema): boolean {
  if (schema['x-kubernetes-validations']?.length) return true;
  if (schema.items && hasRules(schema.items)) return true;
  if (typeof schema.additionalProperties === 'object' && hasRules(schema.additionalProperties)) return true;
  return Object.values(schema.properties ?? {}).some(hasRules);
}
