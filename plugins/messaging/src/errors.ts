import { defineErrors } from '../../../gateway/src/plugin-api.ts';

/** Every error the messaging plugin answers with; each code is documented in ../README.md (a test checks). */
export const messagingErrors = defineErrors({
  'messaging.webhook.payload_invalid': {
    status: 400,
    title: 'The webhook payload is not a WhatsApp Cloud API notification',
  },
  'messaging.webhook.signature_invalid': {
    status: 401,
    title: 'X-Hub-Signature-256 is missing or does not match the body',
  },
  'messaging.webhook.verification_failed': {
    status: 403,
    title: 'The subscription verification token does not match',
  },
});
