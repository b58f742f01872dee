import type { Decision } from '../domain/state-machine.ts';
import type { VerificationProvider } from './provider.ts';

const OUTCOMES: ReadonlyArray<[suffix: string, decision: Decision]> = [
  ['-approve', 'approved'],
  ['-reject', 'rejected'],
  ['-review', 'needs_review'],
];

/**
 * The sandbox provider (README, "Sandbox"): deterministic, and asynchronous like a real
 * one. It accepts the verification at once (`processing`) and decides `delayMs` later from the suffix of
 * `subjectExternalRef`: `-approve`, `-reject`, `-review`; any other reference stays `processing` until a
 * reviewer decides.
 */
export function sandboxProvider(options: { delayMs: number }): VerificationProvider {
  return {
    id: 'sandbox',
    start: (_verification, now) => ({
      to: 'processing',
      reason: 'sandbox: accepted',
      nextCheckAt: new Date(now.getTime() + options.delayMs),
    }),
    poll: (verification) => {
      const outcome = OUTCOMES.find(([suffix]) => verification.subjectExternalRef.endsWith(suffix));
      if (!outcome) return { nextCheckAt: null };
      return { to: outcome[1], reason: `sandbox: reference ends in ${outcome[0]}`, nextCheckAt: null };
    },
  };
}
