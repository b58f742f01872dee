/**
 * The contract between the operator's runtime (watches, work queue, leader election: operator/src/runtime)
 * and its reconciler (operator/src/reconcile): the runtime calls `reconcile` for one AuthConfig at a time
 * per key, level-based (the reconciler reads the current state itself; the key is all it is given).
 */
export interface ObjectKey {
  namespace: string;
  name: string;
}

export interface ReconcileResult {
  /** Reconcile this key again after this long (the next rollout analysis), even without events. */
  requeueAfterMs?: number;
  /**
   * The Secrets (in the key's namespace) the target's pods read, when the reconcile got that far: the runtime
   * reconciles the key again when one of them changes, so a rotation rolls the pods.
   */
  secrets?: string[];
}

export interface Reconciler {
  /** Throws on errors the runtime should retry with backoff. */
  reconcile(key: ObjectKey): Promise<ReconcileResult>;
}
