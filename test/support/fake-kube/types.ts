/** Shapes shared by the fake Kubernetes API server's parts. */
import type { FieldSchema } from './field-paths.ts';

/** A JSON object as it travels over the wire. */
export type JsonObject = { [key: string]: unknown };

export interface ObjectMeta extends JsonObject {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: JsonObject[];
  finalizers?: string[];
}

/** Any stored object: TypeMeta, ObjectMeta and whatever else (spec, data, status...). */
export interface KubeObject extends JsonObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

/** A resource type the server serves, with the strategy switches that differ between real types. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** Discovery's extras (a CRD's names). */
  singular?: string;
  shortNames?: string[];
  categories?: string[];
  /** `/status` exists: main-resource writes keep the stored status, status writes change only status. */
  statusSubresource: boolean;
  /** metadata.generation is kept and bumped when anything outside metadata and status changes. */
  generation: boolean;
  /** PUT without metadata.resourceVersion is allowed (built-ins) or 422 (custom resources). */
  allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object (custom resources) rather than a Success Status. */
  returnDeletedObject: boolean;
  /**
   * `application/strategic-merge-patch+json` is accepted (built-in kinds); custom resources refuse it with 415,
   * as a real server does, and kubectl sends them JSON merge patches instead.
   */
  strategicMergePatch?: boolean;
  /** How server-side apply merges a custom resource's lists and objects (its CRD's schema for this version). */
  fieldSchema?: FieldSchema;
  /** The type's create strategy beyond the common one (a Namespace's phase and finalizer, say). */
  prepareForCreate?: (object: KubeObject) => void;
  /** The type's update strategy: `next` is about to replace `existing` through the main resource. */
  prepareForUpdate?: (next: KubeObject, existing: KubeObject) => void;
  /**
   * Admission after the strategy, before storing: defaulting, pruning and validation (a custom resource's schema
   * and CEL rules, a CRD's own validation). Returns the object to store, or throws a KubeError (422, 400).
   */
  admit?: (next: KubeObject, existing: KubeObject | undefined, write: WriteContext) => KubeObject;
}

/** How a write asked to be treated (`?fieldValidation=`) and where its warnings go (`Warning` headers). */
export interface WriteContext {
  fieldValidation: FieldValidation;
  subresource: 'status' | undefined;
  warnings: string[];
  /**
   * The field manager of a request's write (`?fieldManager=`, else the user agent's product, as a real server
   * derives it); undefined for the server's own writes, which change no `managedFields`.
   */
  manager?: string;
  /** `?force=true`: an apply takes the fields other managers own instead of failing with a conflict. */
  force?: boolean;
}

/** `Strict` refuses unknown fields (400), `Warn` (the default) drops them with a warning, `Ignore` drops them. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** The custom resource registered at start, e.g. gatehouse.dev/v1alpha1 authconfigs AuthConfig. */
export interface CustomResourceOptions {
  group: string;
  version: string;
  plural: string;
  kind: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change, kept in the retained window so watches can resume from a resourceVersion. */
export interface ChangeEvent {
  type: WatchEventType;
  resource: ResourceType;
  object: KubeObject;
  /** The object before the change, to turn label-selector transitions into ADDED / DELETED. */
  previous: KubeObject | undefined;
  resourceVersion: number;
}

/** One entry of the server's request log. */
export interface RequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  contentType: string | undefined;
  status: number;
  watch: boolean;
}
