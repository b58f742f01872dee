import type { VerificationProvider } from './provider.ts';

/**
 * The manual provider: a person decides. The verification waits in `processing` until a reviewer posts
 * a decision to `POST /api/v1/admin/kyc/verifications/{id}/decision`.
 */
export function manualProvider(): VerificationProvider {
  return {
    id: 'manual',
    start: () => ({ to: 'processing', reason: 'waiting for a reviewer', nextCheckAt: null }),
    poll: () => ({ nextCheckAt: null }),
  };
}
