/**
 * The subset of a CustomResourceDefinition's OpenAPI v3 schema (`JSONSchemaProps`) the AuthConfig uses, in
 * the JSON shape the API server reads (`x-kubernetes-*` keys as written in YAML, not the camelCase of the
 * client library's models). Keeping the type narrow means the generator, the defaulting, the structural check
 * and the CEL harness only handle keywords that actually occur.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One `x-kubernetes-validations` entry: a CEL rule evaluated with `self` bound to the value at its location. */
export interface ValidationRule {
  rule: string;
  /** Shown when the rule fails; without it the API server says "failed rule: <rule>". No line breaks. */
  message: string;
  /** Relative JSON path of the field to blame (Kubernetes 1.28+), e.g. `.oidc.enabled`. */
  fieldPath?: string;
  /** Machine-readable reason; the API server defaults to FieldValueInvalid. */
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface JsonSchema {
  type: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  /** A map: any key, values of this schema. */
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  enum?: string[];
  default?: JsonValue;
  /** `date-time` (a timestamp in CEL) and `int64` are the ones used here. */
  format?: 'date-time' | 'int64';
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

/** Where a problem is: a JSON path from the object root, e.g. `spec.oidc.issuer` or `spec.env[2].name`. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/** Appends a property or index to a path the way problems print it. */
export function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}
