import { GROUP } from '../api/names.ts';

/**
 * The annotations the reconciler reads and writes. The rollout ones are set by SREs (or, later, by
 * `gatehouse rollout rollback|promote`, issue 7 point 5) on the AuthConfig; the config hash is written on the
 * target Deployment's pod template so that a new env ConfigMap rolls the pods.
 */
export const ANNOTATIONS = {
  /** On the pod template: the content hash of the env ConfigMap the pods run with. */
  configHash: `${GROUP}/config-hash`,
  /** On the AuthConfig: "true" asks for an immediate rollback to API_AUTH_MODE=disabled (issue 7 point 3). */
  rollback: `${GROUP}/rollback`,
  /** On the AuthConfig: when a human approved warn → enforce (ISO-8601). */
  promote: `${GROUP}/promote`,
} as const;
