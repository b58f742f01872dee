/**
 * Whether a password sign-in may issue its session at once, must first pass a second factor, or must first enroll
 * one (README, "Second factors"). Pure: the caller reads the account's factors and the settings.
 */
export type SecondFactorStep = 'none' | 'verify' | 'enroll';

export interface SecondFactorFacts {
  /** The account's factors: a confirmed TOTP enrollment, its passkeys. */
  totp: boolean;
  passkeys: number;
  /** A break-glass sign-in (a wildcard admin's password where only they may use one): a factor is required. */
  breakGlass: boolean;
  /** The admin toggle: every password sign-in needs a second factor. */
  requireTotp: boolean;
  /** Directory-managed accounts are exempt from the toggle: their MFA lives with the identity provider. */
  directoryManaged: boolean;
  /** An administrator reset the account's TOTP: it enrolls again at its next sign-in. */
  enrollmentRequired: boolean;
}

export function secondFactorStep(facts: SecondFactorFacts): SecondFactorStep {
  // An account that has a factor always uses it, whatever the settings say.
  if (facts.totp || facts.passkeys > 0) return 'verify';
  const required =
    facts.breakGlass || facts.enrollmentRequired || (facts.requireTotp && !facts.directoryManaged);
  return required ? 'enroll' : 'none';
}
