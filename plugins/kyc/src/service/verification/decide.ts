import type { VerificationView } from '../../domain/api-schemas.ts';
import { canTransition, type Decision } from '../../domain/state-machine.ts';
import { kycErrors } from '../../errors.ts';
import { verificationStore } from '../../store/verification-store.ts';
import { changing, transition, type VerificationDeps } from './transition.ts';

/**
 * A reviewer's (or a provider callback's) decision: 404 for an unknown verification, 409
 * `kyc.invalid_transition` when its status does not allow this one. Answers the verification as decided.
 */
export async function decideVerification(
  deps: Pick<VerificationDeps, 'db' | 'cache' | 'clock' | 'onStatusChange'>,
  id: string,
  decision: Decision,
  options: { reason: string; actor: string },
): Promise<VerificationView> {
  await changing(deps, async (tx, changed) => {
    const row = await verificationStore.lock(tx, id);
    if (!row) throw kycErrors.create('kyc.verification.not_found');
    if (!canTransition(row.status, decision)) {
      throw kycErrors.create('kyc.invalid_transition', {
        detail: `The verification is ${row.status}; it cannot become ${decision}.`,
        extensions: { from: row.status, to: decision },
      });
    }
    await transition(deps, tx, row, decision, {
      reason: options.reason,
      actor: options.actor,
      nextCheckAt: null,
    });
    changed.push(id);
  });
  return (await verificationStore.viewById(deps.db.pool, id)) as VerificationView;
}
