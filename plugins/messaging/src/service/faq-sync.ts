import type { Clock, Database, Logger } from '../../../../gateway/src/plugin-api.ts';
import type { FaqSyncRun } from '../domain/faq-schemas.ts';
import { countActions, planSync, type SyncAction } from '../domain/faq-sync-plan.ts';
import { messagingErrors } from '../errors.ts';
import { faqStore } from '../store/faq-store.ts';
import { faqSyncStore, type RunEnd } from '../store/faq-sync-store.ts';
import { pullUpstream, type UpstreamOptions } from './faq-upstream.ts';
import { mirrorFaqIntoKb } from './kb-faq-mirror.ts';

export interface FaqSyncDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** Unset when FAQ_SYNC_URL is not configured. */
  upstream: UpstreamOptions | null;
}

/**
 * One FAQ sync run (README, "FAQ", "Synchronisation"), started by an admin or by the schedule. Only one runs at
 * a time across replicas (the sync store's advisory lock): a manual start while one runs is refused with
 * `messaging.faq.sync_in_progress`, a scheduled one skips. The run is recorded before the fetch; the list is
 * applied in one transaction, so a failure anywhere (the service down, a slow or oversized answer, garbage)
 * records the error and changes no entry.
 */
export async function runFaqSync(deps: FaqSyncDeps, trigger: 'manual' | 'schedule'): Promise<FaqSyncRun> {
  const upstream = deps.upstream;
  if (upstream === null) throw messagingErrors.create('messaging.faq.sync_not_configured');
  const locked = await faqSyncStore.withSyncLock(deps.db, () => syncLocked(deps, upstream, trigger));
  if (locked === null) throw messagingErrors.create('messaging.faq.sync_in_progress');
  return locked.value;
}

/**
 * The scheduled pass: syncs when the last run (of any replica) started at least `intervalMs` ago, so
 * replicas together sync once per interval. Returns 0 (the loop has nothing more to do until its next tick).
 */
export async function scheduledFaqSync(deps: FaqSyncDeps, intervalMs: number): Promise<number> {
  const upstream = deps.upstream;
  if (upstream === null) return 0;
  await faqSyncStore.withSyncLock(deps.db, async () => {
    const last = await faqSyncStore.lastStart(deps.db);
    if (last !== null && deps.clock.now().getTime() - last.getTime() < intervalMs) return;
    await syncLocked(deps, upstream, 'schedule');
  });
  return 0;
}

async function syncLocked(
  deps: FaqSyncDeps,
  upstream: UpstreamOptions,
  trigger: 'manual' | 'schedule',
): Promise<FaqSyncRun> {
  await faqSyncStore.closeAbandoned(deps.db, deps.clock.now());
  const runId = await faqSyncStore.startRun(deps.db, trigger, deps.clock.now());
  const end = await pullAndApply(deps, upstream);
  const run = await faqSyncStore.finishRun(deps.db, runId, end, deps.clock.now());
  const { counts: _counts, ...summary } = end;
  if (end.status === 'failed') deps.logger.warn({ run: runId, ...summary }, 'messaging: FAQ sync failed');
  else deps.logger.info({ run: runId, status: end.status }, 'messaging: FAQ sync done');
  return run;
}

async function pullAndApply(deps: FaqSyncDeps, upstream: UpstreamOptions): Promise<RunEnd> {
  const etag = await faqSyncStore.etag(deps.db);
  const pulled = await pullUpstream(upstream, etag);
  if (pulled.kind === 'not_modified') return { status: 'not_modified', etag };
  if (pulled.kind === 'error') return { status: 'failed', etag, error: pulled.error };
  try {
    const counts = await deps.db.transaction(async (tx) => {
      const actions = planSync(pulled.items, await faqStore.knownSynced(tx));
      const now = deps.clock.now();
      for (const action of actions) await apply(tx, action, now);
      await mirrorFaqIntoKb(tx, now);
      await faqSyncStore.saveEtag(tx, pulled.etag);
      return countActions(actions);
    });
    return { status: 'succeeded', etag: pulled.etag, counts };
  } catch (err) {
    return {
      status: 'failed',
      etag,
      error: `applying the list failed: ${(err as Error).message}`.slice(0, 500),
    };
  }
}

async function apply(
  tx: Parameters<typeof faqStore.create>[0],
  action: SyncAction,
  now: Date,
): Promise<void> {
  switch (action.kind) {
    case 'create':
      return faqStore.createSynced(tx, action.item, action.hash, now);
    case 'update':
      return faqStore.applyUpstream(tx, action.entryId, action.item, action.hash, now);
    case 'conflict':
      return faqSyncStore.recordConflict(tx, action.entryId, action.item, action.hash, now);
    case 'archive':
      return faqStore.archiveRemoved(tx, action.entryId, now);
    case 'unchanged':
      return;
  }
}
