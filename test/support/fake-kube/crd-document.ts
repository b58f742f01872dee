/** The parts of a CustomResourceDefinition document the fake reads, and the CRD made from a short description. */
import type { Schema } from './schema/types.ts';
import type { CustomResourceOptions, KubeObject } from './types.ts';

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object; scale?: object };
  schema?: { openAPIV3Schema?: Schema };
  [field: string]: unknown;
}

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CrdDocument extends KubeObject {
  spec: {
    group: string;
    scope: string;
    names: CrdNames;
    versions: CrdVersion[];
    preserveUnknownFields?: boolean;
    [field: string]: unknown;
  };
}

/** The openAPIV3Schema of one version of a CRD (undefined: none, which v1 refuses). */
export function crdSchemaFor(crd: CrdDocument, version: string): Schema | undefined {
  return crd.spec.versions.find((v) => v.name === version)?.schema?.openAPIV3Schema;
}

/**
 * The CRD for a `customResource` start option given only names: namespaced, one version with a status
 * subresource, and a schema that keeps any field (`x-kubernetes-preserve-unknown-fields`), so objects are stored
 * as sent. Suites that need the real validation install their CRD document instead.
 */
export function permissiveCrd(options: CustomResourceOptions): CrdDocument {
  const { group, version, plural, kind } = options;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: version,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** True when a start option is a whole CRD document rather than a short description. */
export function isCrdDocument(value: unknown): value is CrdDocument {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { kind?: unknown }).kind === 'CustomResourceDefinition'
  );
}
