export {
  createReconciler,
  TARGET_RETRY_MS,
  type ReconcileLogger,
  type ReconcilerOptions,
} from './reconciler.ts';
export { ANNOTATIONS } from '../api/names.ts';
export { CONFIG_MAP_HISTORY } from './config-map-history.ts';
export type { ObjectKey, ReconcileResult, Reconciler } from './types.ts';
