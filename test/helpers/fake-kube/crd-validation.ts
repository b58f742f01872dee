/** What the apiextensions server checks when a CRD is created or updated. */
import type { CrdDocument } from './crd-document.ts';
import { invalid, type FieldError } from './schema/field-errors.ts';

const CRD_KIND = { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' };

/** Throws the real server's 422 for a CRD it would refuse. */
export function validateCrd(crd: CrdDocument, existing: CrdDocument | undefined): void {
  const errors = crdErrors(crd, existing);
  if (errors.length > 0) throw invalid(CRD_KIND, crd.metadata.name ?? '', errors);
}

function crdErrors(crd: CrdDocument, _existing: CrdDocument | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = crd.spec;
  const expected = `${spec.names.plural}.${spec.group}`;
  if (crd.metadata.name !== expected) {
    errors.push({
      type: 'FieldValueInvalid',
      field: 'metadata.name',
      value: crd.metadata.name ?? '',
      detail: 'must be spec.names.plural+"."+spec.group',
    });
  }
  return errors;
}
