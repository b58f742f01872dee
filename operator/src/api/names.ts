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

/** Labels on what the operator creates. */
export const LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** The AuthConfig a ConfigMap belongs to (its name). */
  authConfig: `${GROUP}/authconfig`,
  /** The content hash of an env ConfigMap (the suffix of its name). */
  configHash: `${GROUP}/config-hash`,
} as const;

export const MANAGED_BY = 'gatehouse-operator';
