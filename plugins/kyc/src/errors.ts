import { defineErrors } from '../../../gateway/src/plugin-api.ts';

/** Every error the kyc plugin answers with; each code is documented in ../README.md (a test checks). */
export const kycErrors = defineErrors({
  'kyc.api_key.invalid': { status: 401, title: 'The API key is missing, unknown, revoked or expired' },
  'kyc.rate_limited': { status: 429, title: 'Too many requests for this API key; retry later' },
  'kyc.quota_exhausted': { status: 402, title: 'The billable quota of this period is used up' },
  'kyc.verification.not_found': { status: 404, title: 'No such verification' },
  'kyc.invalid_transition': {
    status: 409,
    title: 'The verification cannot move to that status from its current one',
  },
  'kyc.idempotency_mismatch': {
    status: 422,
    title: 'This Idempotency-Key was used with a different request body',
  },
  'kyc.idempotency_key.invalid': {
    status: 400,
    title: 'The Idempotency-Key header must be 1 to 255 printable characters',
  },
  'kyc.forbidden': { status: 403, title: 'This needs the kyc:admin role' },
  'kyc.admin.unauthenticated': { status: 401, title: 'A verified staff session is required' },
  'kyc.tenant.not_found': { status: 404, title: 'No such tenant' },
  'kyc.api_key.not_found': { status: 404, title: 'No such API key' },
  'kyc.webhook.not_found': { status: 404, title: 'No such webhook delivery' },
  'kyc.webhook_url.not_public': {
    status: 400,
    title: 'The webhook URL must point to a public address',
  },
});
