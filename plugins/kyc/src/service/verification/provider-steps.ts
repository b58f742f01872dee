import type pg from 'pg';
import type { ProviderStep } from '../../providers/provider.ts';
import { verificationStore, type VerificationRow } from '../../store/verification-store.ts';
import { changing, transition, type VerificationDeps } from './transition.ts';

/**
 * One worker pass over due provider steps: `start` for a new verification, `poll` for one in processing.
 * Rows another replica holds are skipped. Returns how many verifications it moved on.
 */
export async function runDueSteps(deps: VerificationDeps, limit: number): Promise<number> {
  return changing(deps, async (tx, changed) => {
    const due = await verificationStore.lockDue(tx, deps.clock.now(), limit);
    for (const row of due) {
      const provider = deps.providers.get(row.provider);
      if (!provider) {
        // A provider no longer built in: the verification waits for a reviewer.
        await verificationStore.setNextCheck(tx, row.id, null);
        continue;
      }
      const now = deps.clock.now();
      const step = row.status === 'pending' ? await provider.start(row, now) : await provider.poll(row, now);
      await applyStep(deps, tx, row, step);
      changed.push(row.id);
    }
    return due.length;
  });
}

/** Applies what a provider answered: a transition, or only the time of its next check. */
async function applyStep(
  deps: VerificationDeps,
  tx: pg.PoolClient,
  row: VerificationRow,
  step: ProviderStep,
): Promise<VerificationRow> {
  if (step.to === undefined || step.to === row.status) {
    await verificationStore.setNextCheck(tx, row.id, step.nextCheckAt);
    return row;
  }
  return transition(deps, tx, row, step.to, {
    reason: step.reason ?? null,
    actor: `provider:${row.provider}`,
    nextCheckAt: step.nextCheckAt,
  });
}
