/** Admission of custom objects against their CRD version's schema: defaulting, pruning, validation, CEL rules. */
import type { KubeObject, WriteContext } from '../types.ts';
import type { Schema } from './types.ts';

/** The `admit` strategy of a custom resource type. */
export function customObjectAdmission(
  _kind: string,
  _group: string,
  _schema: Schema | undefined,
): (next: KubeObject, existing: KubeObject | undefined, write: WriteContext) => KubeObject {
  return (next) => next;
}
