import { createHash } from 'node:crypto';
import type { UpstreamItem } from './faq-schemas.ts';

/**
 * What a FAQ sync does with an upstream list (README, "FAQ", "Synchronisation"), decided as a pure plan before
 * anything is written. The rules: an unknown id is created; content the entry last saw is unchanged; new
 * content replaces an entry nobody edited here, and becomes a conflict when an admin did (a local edit is
 * never overwritten silently); a synced entry missing from the list is archived.
 */

/** A synced entry as the plan needs it. */
export interface KnownEntry {
  id: string;
  externalId: string;
  /** The hash of the upstream content this entry last took or kept. */
  upstreamHash: string | null;
  locallyEdited: boolean;
  archived: boolean;
  /** The hash of the upstream content of its open conflict, if one is open. */
  openConflictHash: string | null;
}

export type SyncAction =
  | { kind: 'create'; item: UpstreamItem; hash: string }
  | { kind: 'update'; entryId: string; item: UpstreamItem; hash: string }
  | { kind: 'conflict'; entryId: string; item: UpstreamItem; hash: string }
  | { kind: 'archive'; entryId: string }
  | { kind: 'unchanged' };

export interface SyncCounts {
  created: number;
  updated: number;
  archived: number;
  conflicts: number;
  unchanged: number;
}

/** The content hash of an upstream item: what it says, not when it says it changed. */
export function upstreamHash(item: Pick<UpstreamItem, 'questions' | 'answer' | 'language'>): string {
  return createHash('sha256')
    .update(JSON.stringify([item.questions, item.answer, item.language]))
    .digest('hex');
}

function planItem(item: UpstreamItem, known: KnownEntry | undefined): SyncAction {
  const hash = upstreamHash(item);
  if (!known) return { kind: 'create', item, hash };
  if (known.locallyEdited) {
    if (hash === known.upstreamHash || hash === known.openConflictHash) return { kind: 'unchanged' };
    return { kind: 'conflict', entryId: known.id, item, hash };
  }
  // An entry the sync archived comes back when the upstream lists it again.
  if (hash === known.upstreamHash && !known.archived) return { kind: 'unchanged' };
  return { kind: 'update', entryId: known.id, item, hash };
}

/** The actions that bring the synced entries in line with `items`, one per item plus one per removal. */
export function planSync(items: readonly UpstreamItem[], known: readonly KnownEntry[]): SyncAction[] {
  const byExternalId = new Map(known.map((entry) => [entry.externalId, entry]));
  const listed = new Set(items.map((item) => item.id));
  const actions = items.map((item) => planItem(item, byExternalId.get(item.id)));
  for (const entry of known) {
    if (!entry.archived && !listed.has(entry.externalId))
      actions.push({ kind: 'archive', entryId: entry.id });
  }
  return actions;
}

/** How many of each action a plan holds (the sync run's counts). */
export function countActions(actions: readonly SyncAction[]): SyncCounts {
  const counts: SyncCounts = { created: 0, updated: 0, archived: 0, conflicts: 0, unchanged: 0 };
  for (const action of actions) {
    if (action.kind === 'create') counts.created++;
    else if (action.kind === 'update') counts.updated++;
    else if (action.kind === 'archive') counts.archived++;
    else if (action.kind === 'conflict') counts.conflicts++;
    else counts.unchanged++;
  }
  return counts;
}
