/**
 * The AuthConfig resource's names: one place for the group, version and the labels and annotations the
 * operator writes, so the CRD, the RBAC manifest and the reconciler cannot disagree.
 */
export const GROUP = 'gatehouse.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}` as const;
export const KIND = 'AuthConfig';
export const LIST_KIND = 'AuthConfigList';
export const PLURAL = 'authconfigs';
export const SINGULAR = 'authconfig';
export const SHORT_NAMES = ['ac'];
export const CRD_NAME = `${PLURAL}.${GROUP}`;

/**
 * AuthConfig names are DNS labels (at most 63 characters, enforced by the CRD) so the name fits in a label
 * value and `<name>-env-<hash>` stays a valid ConfigMap name.
 */
export const MAX_NAME_LENGTH = 63;

/** The key of an env ConfigMap's content hash, as a label on the ConfigMap and an annotation on the pods. */
const CONFIG_HASH_KEY = `${GROUP}/config-hash`;

/** Labels on what the operator creates. */
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** The AuthConfig a ConfigMap belongs to (its name). */
  authConfig: `${GROUP}/authconfig`,
  /** The content hash of an env ConfigMap (the suffix of its name). */
  configHash: CONFIG_HASH_KEY,
} as const;

/** The value of `LABELS.managedBy` on what the operator creates. */
export const MANAGED_BY = 'gatehouse-operator';

/**
 * The annotations the operator reads and writes. The rollout ones are set on the AuthConfig by SREs, by hand or
 * with `gatehouse rollout rollback|promote`; the config and secrets hashes are written on the target Deployment's
 * pod template, so that a new env ConfigMap or a rotated Secret rolls the pods.
 */
export const ANNOTATIONS = {
  /** On the pod template: the content hash of the env ConfigMap the pods run with. */
  configHash: CONFIG_HASH_KEY,
  /**
   * On the pod template: a digest of the data of every Secret the pods read (operator/README.md, "Secret
   * rotation"), so that rotating one rolls the pods.
   */
  secretsHash: `${GROUP}/secrets-hash`,
  /**
   * On the AuthConfig: "true" asks for an immediate rollback to API_AUTH_MODE=disabled, without analysis
   * (operator/README.md, "Rollout decisions", rule 1).
   */
  rollback: `${GROUP}/rollback`,
  /** On the AuthConfig: when a human approved warn → enforce (ISO-8601). */
  promote: `${GROUP}/promote`,
} as const;

/**
 * The field manager of the operator's server-side applies: the owner of the fields it sets on the Deployment,
 * the same for every replica and every version, or the API server would see the fields change hands.
 */
export const FIELD_MANAGER = 'gatehouse-operator';
