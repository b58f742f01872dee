/**
 * Offline validation of built-in Kubernetes objects (rendered manifests, e.g. the Helm chart's) against the
 * Kubernetes OpenAPI definitions, as the API server would with `fieldValidation=Strict`:
 *
 * - types, required fields, enums and formats: the JSON-schema validators of `kubernetes-models`, generated from
 *   the Kubernetes OpenAPI document;
 * - unknown fields (a typo the server would refuse): the models of `@kubernetes/client-node`, generated from the
 *   same document, walked field by field.
 *
 * No npm package carries the OpenAPI document of Kubernetes 1.34 exactly: both packages are generated from a
 * later release (1.36), a superset of 1.34's GA APIs, so a field added after 1.34 would pass here. Custom
 * resources are validated with their CRD's schema instead (test/support/fake-kube/schema).
 */
import * as models from '@kubernetes/client-node';

interface Attribute {
  baseName: string;
  type: string;
}
type ModelClass = { getAttributeTypeMap(): Attribute[] };
type Validatable = new (data: unknown) => { validate(): void };

/** The kubernetes-models module of an apiVersion: `v1`, `apps/v1`, `networking.k8s.io/v1`, ... */
async function modelsModule(apiVersion: string): Promise<Record<string, unknown>> {
  return (await import(`kubernetes-models/${apiVersion}`)) as Record<string, unknown>;
}

function modelClass(name: string): ModelClass | undefined {
  const candidate = (models as unknown as Record<string, unknown>)[name];
  return typeof candidate === 'function' && 'getAttributeTypeMap' in candidate
    ? (candidate as unknown as ModelClass)
    : undefined;
}

const PRIMITIVES: Record<string, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  Date: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  boolean: (value) => typeof value === 'boolean',
  IntOrString: (value) => typeof value === 'string' || typeof value === 'number',
  any: () => true,
  object: () => true,
};

const ARRAY = /^Array<(.+)>$/;
const MAP = /^\{ \[key: string\]: (.+); \}$/;

/** The paths of fields the model of `type` does not know, and of values of the wrong primitive type. */
function unknownFields(value: unknown, type: string, path: string): string[] {
  if (value === null || value === undefined) return [];
  const primitive = PRIMITIVES[type];
  if (primitive) return primitive(value) ? [] : [`${path}: expected ${type}`];
  const array = ARRAY.exec(type);
  if (array?.[1]) {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.flatMap((item, index) => unknownFields(item, array[1] ?? 'any', `${path}[${index}]`));
  }
  const map = MAP.exec(type);
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object`];
  const entries = Object.entries(value as Record<string, unknown>);
  if (map?.[1])
    return entries.flatMap(([key, item]) => unknownFields(item, map[1] ?? 'any', `${path}.${key}`));
  const model = modelClass(type);
  if (!model) return [`${path}: no model ${type}`];
  const fields = new Map(
    model.getAttributeTypeMap().map((attribute) => [attribute.baseName, attribute.type]),
  );
  return entries.flatMap(([key, item]) => {
    const fieldType = fields.get(key);
    return fieldType === undefined
      ? [`${path}.${key}: unknown field`]
      : unknownFields(item, fieldType, `${path}.${key}`);
  });
}

/** The model name of a kind: `V1Deployment`, `V2HorizontalPodAutoscaler`. */
function modelName(apiVersion: string, kind: string): string {
  const version = apiVersion.split('/').at(-1) ?? apiVersion;
  return `${version.charAt(0).toUpperCase()}${version.slice(1)}${kind}`;
}

/**
 * Every problem of a built-in object: unknown kind, schema violations, unknown fields. Empty when it validates.
 */
export async function validateBuiltIn(object: {
  apiVersion?: unknown;
  kind?: unknown;
  [field: string]: unknown;
}): Promise<string[]> {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return ['apiVersion and kind are required'];
  const problems: string[] = [];
  let Model: Validatable | undefined;
  try {
    Model = (await modelsModule(apiVersion))[kind] as Validatable | undefined;
  } catch {
    Model = undefined;
  }
  if (!Model) return [`${apiVersion} ${kind} is not a Kubernetes API`];
  try {
    new Model(object).validate();
  } catch (error) {
    problems.push((error as Error).message);
  }
  problems.push(...unknownFields(object, modelName(apiVersion, kind), kind));
  return problems;
}

/**
 * Every problem of a Prometheus Operator object (ServiceMonitor, PodMonitor, PrometheusRule): validated with the
 * JSON schemas `@kubernetes-models/prometheus-operator` generates from that project's own CRDs. Empty when it
 * validates.
 */
export async function validatePrometheusOperator(object: {
  apiVersion?: unknown;
  kind?: unknown;
  [field: string]: unknown;
}): Promise<string[]> {
  const { apiVersion, kind } = object;
  if (apiVersion !== 'monitoring.coreos.com/v1' || typeof kind !== 'string' || !/^[A-Za-z]+$/.test(kind))
    return [`${String(apiVersion)} ${String(kind)} is not a Prometheus Operator kind`];
  let Model: Validatable | undefined;
  try {
    Model = (
      (await import(`@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/${kind}`)) as Record<
        string,
        unknown
      >
    )[kind] as Validatable | undefined;
  } catch {
    Model = undefined;
  }
  if (!Model) return [`${apiVersion} ${kind} is not a Prometheus Operator kind`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}
