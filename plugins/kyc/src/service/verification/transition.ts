import type pg from 'pg';
import type { Clock, Database } from '../../../../../gateway/src/plugin-api.ts';
import { assertTransition, isTerminal, type VerificationStatus } from '../../domain/state-machine.ts';
import type { VerificationProvider } from '../../providers/provider.ts';
import { verificationStore, type VerificationRow } from '../../store/verification-store.ts';
import type { VerificationCache } from '../verification-cache.ts';

/** One change of status, committed with the transaction that made it. */
export interface StatusChange {
  verification: VerificationRow;
  from: VerificationStatus;
  to: VerificationStatus;
  reason: string | null;
  actor: string;
  at: Date;
}

/** Runs inside the transaction of a status change (the webhook outbox enqueues here). */
export type StatusChangeListener = (tx: pg.PoolClient, change: StatusChange) => Promise<void>;

/** What the steps of the verification lifecycle work with. */
export interface VerificationDeps {
  db: Database;
  clock: Clock;
  providers: ReadonlyMap<string, VerificationProvider>;
  onStatusChange: readonly StatusChangeListener[];
  cache: VerificationCache;
}

/** How a transition is recorded: why, by whom, and when the provider is to be asked next. */
export interface TransitionOptions {
  reason: string | null;
  actor: string;
  nextCheckAt: Date | null;
}

/**
 * Runs `work` in a transaction; the verifications it changed (their ids pushed on `changed`) leave this
 * replica's cache on commit. Other replicas hear of them through the NOTIFY every transition sends.
 */
export async function changing<T>(
  deps: Pick<VerificationDeps, 'db' | 'cache'>,
  work: (tx: pg.PoolClient, changed: string[]) => Promise<T>,
): Promise<T> {
  const changed: string[] = [];
  const result = await deps.db.transaction((tx) => work(tx, changed));
  for (const id of changed) deps.cache.invalidate(id);
  return result;
}

/**
 * Applies one transition to a locked row: the state machine first (an illegal transition throws before
 * anything is written), then the row, the history, the status-change listeners and the NOTIFY, all in
 * the caller's transaction. Returns the row as it is after the change.
 */
export async function transition(
  deps: Pick<VerificationDeps, 'clock' | 'onStatusChange'>,
  tx: pg.PoolClient,
  row: VerificationRow,
  to: VerificationStatus,
  options: TransitionOptions,
): Promise<VerificationRow> {
  assertTransition(row.status, to);
  const at = deps.clock.now();
  const decided = to === 'approved' || to === 'rejected' || to === 'needs_review';
  await verificationStore.update(tx, row.id, {
    status: to,
    decisionReason: decided ? options.reason : null,
    decidedAt: isTerminal(to) || to === 'needs_review' ? at : null,
    nextCheckAt: isTerminal(to) ? null : options.nextCheckAt,
    at,
  });
  await verificationStore.addEvent(tx, {
    verificationId: row.id,
    from: row.status,
    to,
    reason: options.reason,
    actor: options.actor,
    at,
  });
  const after: VerificationRow = {
    ...row,
    status: to,
    decisionReason: decided ? options.reason : row.decisionReason,
    updatedAt: at,
  };
  const change = {
    verification: after,
    from: row.status,
    to,
    reason: options.reason,
    actor: options.actor,
    at,
  };
  for (const listener of deps.onStatusChange) await listener(tx, change);
  await verificationStore.notifyChanged(tx, row.id);
  return after;
}
