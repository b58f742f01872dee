import { verificationStore } from '../../store/verification-store.ts';
import { changing, transition, type VerificationDeps } from './transition.ts';

/**
 * Expires open verifications past their expiry (7 days after initiation), skipping rows another replica
 * holds; returns how many.
 */
export async function expireOverdue(
  deps: Pick<VerificationDeps, 'db' | 'cache' | 'clock' | 'onStatusChange'>,
  limit: number,
): Promise<number> {
  return changing(deps, async (tx, changed) => {
    const overdue = await verificationStore.lockExpired(tx, deps.clock.now(), limit);
    for (const row of overdue) {
      await transition(deps, tx, row, 'expired', {
        reason: 'not decided within 7 days',
        actor: 'system',
        nextCheckAt: null,
      });
      changed.push(row.id);
    }
    return overdue.length;
  });
}
