import type { RolloutHistoryEntry } from './types.ts';

/**
 * How many transitions `status.rollout.history` keeps (the newest). A rollout has a handful of transitions; 50
 * covers weeks of flapping while keeping the AuthConfig's status far below etcd's object size limit.
 */
export const HISTORY_LIMIT = 50;

/** The history with `entry` appended, bounded to the newest {@link HISTORY_LIMIT} entries (a new array). */
export function appendHistory(
  history: readonly RolloutHistoryEntry[],
  entry: RolloutHistoryEntry,
): RolloutHistoryEntry[] {
  return [...history, entry].slice(-HISTORY_LIMIT);
}
