/**
 * What the apiextensions server checks when a CRD is created or updated: names, scope, versions, then for each
 * version's schema the structural rules, the rules' compilation, and every `default` validated against its own
 * node's schema and CEL rules as written — without filling in the defaults nested inside it, which is why a
 * `default: {}` under a rule that reads a defaulted child fails (`no such key`).
 */
import { isDeepStrictEqual } from 'node:util';
import type { CrdDocument } from './crd-document.ts';
import { invalid, type FieldError } from './schema/field-errors.ts';
import { prune } from './schema/prune.ts';
import { validateRules } from './schema/rules.ts';
import { validateSchema } from './schema/structural.ts';
import type { Schema } from './schema/types.ts';
import { validateValue } from './schema/validate.ts';

const CRD_KIND = { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' };

/** Throws the real server's 422 for a CRD it would refuse. */
export function validateCrd(crd: CrdDocument, existing: CrdDocument | undefined): void {
  const errors = [...metaErrors(crd, existing), ...versionErrors(crd)];
  if (errors.length > 0) throw invalid(CRD_KIND, crd.metadata.name ?? '', errors);
}

function metaErrors(crd: CrdDocument, existing: CrdDocument | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  if (!spec.group) errors.push({ type: 'FieldValueRequired', field: 'spec.group', detail: '' });
  if (!names.plural) errors.push({ type: 'FieldValueRequired', field: 'spec.names.plural', detail: '' });
  if (!names.kind) errors.push({ type: 'FieldValueRequired', field: 'spec.names.kind', detail: '' });
  if (crd.metadata.name !== `${names.plural}.${spec.group}`)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      value: crd.metadata.name ?? '',
      detail: 'must be spec.names.plural+"."+spec.group',
    });
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    errors.push({
      type: 'FieldValueNotSupported',
      field: 'spec.scope',
      value: spec.scope ?? '',
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  if (existing && existing.spec.scope !== spec.scope)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.scope',
      value: spec.scope,
      detail: 'field is immutable',
    });
  if (existing && existing.spec.group !== spec.group)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.group',
      value: spec.group,
      detail: 'field is immutable',
    });
  return errors;
}

function versionErrors(crd: CrdDocument): FieldError[] {
  const versions = crd.spec?.versions ?? [];
  if (versions.length === 0)
    return [
      {
        type: 'FieldValueInvalid',
        field: 'spec.versions',
        value: '',
        detail: 'must have exactly one version marked as storage version',
      },
    ];
  const errors: FieldError[] = [];
  if (versions.filter((v) => v.storage).length !== 1)
    errors.push({
      type: 'FieldValueInvalid',
      field: 'spec.versions',
      value: versions.map((v) => v.name).join(','),
      detail: 'must have exactly one version marked as storage version',
    });
  // With one schema for every version the server reports it at spec.validation, as its internal form keeps it.
  const shared = versions.every((v) => isDeepStrictEqual(v.schema, versions[0]?.schema));
  versions.forEach((version, index) => {
    if (shared && index > 0) return;
    const base = shared ? 'spec.validation' : `spec.versions[${index}].schema`;
    const schema = version.schema?.openAPIV3Schema;
    if (!schema) {
      errors.push({
        type: 'FieldValueRequired',
        field: `spec.versions[${index}].schema.openAPIV3Schema`,
        detail: 'schemas are required',
      });
      return;
    }
    errors.push(...schemaErrors(schema, `${base}.openAPIV3Schema`));
  });
  return errors;
}

function schemaErrors(schema: Schema, path: string): FieldError[] {
  const { structural, rules } = validateSchema(schema, path);
  if (structural.length > 0) return [...rules, ...structural];
  return [...rules, ...defaultErrors(schema, path, true)];
}

/** Every `default` checked as written against its own node: unknown fields, the schema, then the CEL rules. */
function defaultErrors(schema: Schema, path: string, isRoot: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.default !== undefined) {
    const at = `${path}.default`;
    const pruned = prune(schema, schema.default, false);
    if (pruned.pruned.length > 0)
      errors.push({
        type: 'FieldValueInvalid',
        field: at,
        value: schema.default,
        detail: 'must not have unknown fields',
      });
    const invalidValue = validateValue(schema, schema.default, '', at);
    if (invalidValue.length > 0) errors.push(...invalidValue);
    else errors.push(...validateRules(schema, schema.default, at, { isRoot, old: schema.default }));
  }
  // Defaults are not allowed under additionalProperties, so only items and properties are walked.
  if (schema.items) errors.push(...defaultErrors(schema.items, `${path}.items`, false));
  for (const [key, child] of Object.entries(schema.properties ?? {}))
    errors.push(...defaultErrors(child, `${path}.properties[${key}]`, false));
  return errors;
}
