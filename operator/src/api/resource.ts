import type { API_VERSION, KIND } from './names.ts';
import type { AuthConfigSpec, AuthConfigSpecInput, AuthConfigStatus } from './types.generated.ts';

/** The parts of metav1.ObjectMeta the operator reads and writes. */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An AuthConfig as the API server returns it (defaults applied). */
export interface AuthConfig {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: ObjectMeta;
  spec: AuthConfigSpec;
  status?: AuthConfigStatus;
}

/** An AuthConfig as a user writes it (a manifest). */
export interface AuthConfigInput {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: ObjectMeta;
  spec: AuthConfigSpecInput;
}
