import type { Decision } from '../domain/state-machine.ts';
import type { VerificationRow } from '../store/verification-store.ts';

/** What a provider says after a step: move to `to` (or stay), and when to ask it again. */
export interface ProviderStep {
  to?: 'processing' | Decision;
  reason?: string;
  /** When the worker should call `poll` next; null = wait for a callback or a reviewer. */
  nextCheckAt: Date | null;
}

/**
 * A verification provider (README, "Design"): the service that actually checks a subject. The worker
 * calls `start` for a new (`pending`) verification and `poll` for a `processing` one whose check is
 * due; a provider that calls back instead returns `nextCheckAt: null` and its callback route hands the
 * outcome to `VerificationService.decide`, as a reviewer's decision does. Every step goes through the
 * state machine, so a provider cannot make an illegal transition.
 */
export interface VerificationProvider {
  readonly id: string;
  start(verification: VerificationRow, now: Date): ProviderStep | Promise<ProviderStep>;
  poll(verification: VerificationRow, now: Date): ProviderStep | Promise<ProviderStep>;
}
