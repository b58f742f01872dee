/** The env ConfigMaps kept for rollback: the last 5 (docs/adr/0007-operator.md, "Requirements"). */
export const CONFIG_MAP_HISTORY = 5;

export interface StoredConfigMap {
  name: string;
  creationTimestamp?: string;
  resourceVersion?: string;
}

/**
 * The ConfigMaps of one AuthConfig to delete: all but the {@link CONFIG_MAP_HISTORY} most recent, where the
 * applied one and the previous one are always kept (a rollback may point the Deployment back at an old
 * ConfigMap). Recency is the creation time, ties broken by resourceVersion (one-second timestamps). Pure.
 */
export function configMapsToPrune(stored: readonly StoredConfigMap[], keep: readonly string[]): string[] {
  const rank = (item: StoredConfigMap) => (keep.includes(item.name) ? 1 : 0);
  const ordered = [...stored].sort(
    (a, b) =>
      rank(b) - rank(a) ||
      Date.parse(b.creationTimestamp ?? '') - Date.parse(a.creationTimestamp ?? '') ||
      Number(b.resourceVersion ?? 0) - Number(a.resourceVersion ?? 0),
  );
  return ordered.slice(CONFIG_MAP_HISTORY).map((item) => item.name);
}
