/**
 * The verification lifecycle (README, "Statuses"):
 *
 *   pending → processing → approved | rejected | needs_review
 *   needs_review → approved | rejected
 *   pending | processing → expired (7 days after initiation)
 *
 * approved, rejected and expired are terminal. Every change of status goes through `assertTransition`.
 */
export const VERIFICATION_STATUSES = [
  'pending',
  'processing',
  'approved',
  'rejected',
  'needs_review',
  'expired',
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

const NEXT: Readonly<Record<VerificationStatus, readonly VerificationStatus[]>> = {
  pending: ['processing', 'expired'],
  processing: ['approved', 'rejected', 'needs_review', 'expired'],
  needs_review: ['approved', 'rejected'],
  approved: [],
  rejected: [],
  expired: [],
};

/** The statuses a decision (provider or reviewer) may set. */
export const DECISIONS = ['approved', 'rejected', 'needs_review'] as const;
export type Decision = (typeof DECISIONS)[number];

export const VERIFICATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function canTransition(from: VerificationStatus, to: VerificationStatus): boolean {
  return NEXT[from].includes(to);
}

export function isTerminal(status: VerificationStatus): boolean {
  return NEXT[status].length === 0;
}

export class InvalidTransitionError extends Error {
  override readonly name = 'InvalidTransitionError';
  readonly from: VerificationStatus;
  readonly to: VerificationStatus;
  constructor(from: VerificationStatus, to: VerificationStatus) {
    super(`a verification cannot go from ${from} to ${to}`);
    this.from = from;
    this.to = to;
  }
}

export function assertTransition(from: VerificationStatus, to: VerificationStatus): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}
