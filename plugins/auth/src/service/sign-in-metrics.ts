import { Counter, type Registry } from 'prom-client';

/** How a sign-in began: the first factor. A passkey sign-in is complete by itself. */
export type SignInMethod = 'password' | 'ldap' | 'oidc' | 'passkey';

/**
 * What became of a sign-in step (README, "Metrics"):
 * - `success`: a session was issued;
 * - `failure`: the first step was refused (every such refusal answers the same generic error);
 * - `second_factor_required`: the password was right, the session waits for a second factor;
 * - `second_factor_failed`: the second factor (or the passkey) was refused.
 */
export type SignInOutcome = 'success' | 'failure' | 'second_factor_required' | 'second_factor_failed';

const METHODS: readonly SignInMethod[] = ['password', 'ldap', 'oidc', 'passkey'];
const OUTCOMES: readonly SignInOutcome[] = [
  'success',
  'failure',
  'second_factor_required',
  'second_factor_failed',
];

export interface SignInMetrics {
  record(method: SignInMethod, outcome: SignInOutcome): void;
}

/**
 * `gatehouse_auth_sign_ins_total{method, outcome}`. Every pair starts at zero, so a rate over the first failures
 * after a deploy is not missing its series.
 */
export function createSignInMetrics(registry: Registry): SignInMetrics {
  const signIns = new Counter({
    name: 'gatehouse_auth_sign_ins_total',
    help: 'Sign-in steps by first-factor method (password, ldap, oidc, passkey) and outcome (success, failure, second_factor_required, second_factor_failed)',
    labelNames: ['method', 'outcome'] as const,
    registers: [registry],
  });
  for (const method of METHODS) for (const outcome of OUTCOMES) signIns.inc({ method, outcome }, 0);
  return { record: (method, outcome) => signIns.inc({ method, outcome }) };
}
