import { describe, expect, it } from 'vitest';
import {
  assertTransition,
  canTransition,
  InvalidTransitionError,
  isTerminal,
  VERIFICATION_STATUSES,
  type VerificationStatus,
} from './state-machine.ts';

const ALLOWED: Array<[VerificationStatus, VerificationStatus]> = [
  ['pending', 'processing'],
  ['pending', 'expired'],
  ['processing', 'approved'],
  ['processing', 'rejected'],
  ['processing', 'needs_review'],
  ['processing', 'expired'],
  ['needs_review', 'approved'],
  ['needs_review', 'rejected'],
];

describe('verification state machine (README, "Statuses")', () => {
  it('allows exactly the documented transitions', () => {
    for (const from of VERIFICATION_STATUSES) {
      for (const to of VERIFICATION_STATUSES) {
        const documented = ALLOWED.some(([a, b]) => a === from && b === to);
        expect(canTransition(from, to), `${from} → ${to}`).toBe(documented);
      }
    }
  });

  it('has approved, rejected and expired as its terminal states', () => {
    expect(VERIFICATION_STATUSES.filter(isTerminal)).toEqual(['approved', 'rejected', 'expired']);
  });

  it('refuses an illegal transition with a typed error', () => {
    expect(() => assertTransition('approved', 'rejected')).toThrow(InvalidTransitionError);
    expect(() => assertTransition('needs_review', 'expired')).toThrow(/needs_review to expired/);
  });
});
