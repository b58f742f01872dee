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
  'messaging.staff.unauthenticated': {
    status: 401,
    title: 'The staff API needs a verified staff session',
  },
  'messaging.cursor.invalid': {
    status: 400,
    title: 'The pagination cursor is not one this list handed out',
  },
  'messaging.conversation.not_found': {
    status: 404,
    title: 'No conversation with this id in your scope',
  },
  'messaging.message.not_found': {
    status: 404,
    title: 'No message with this id in your scope',
  },
  'messaging.lead.not_found': {
    status: 404,
    title: 'No lead with this id in your scope',
  },
  'messaging.cluster.not_found': {
    status: 404,
    title: 'No cluster with this id in your scope',
  },
  'messaging.assignee.not_member': {
    status: 422,
    title: "The assignee is not a member of the conversation's cluster",
  },
  'messaging.idempotency_key.invalid': {
    status: 400,
    title: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
  },
  'messaging.idempotency_key.reused': {
    status: 422,
    title: 'This Idempotency-Key was used for a different request',
  },
  'messaging.lead.precondition_required': {
    status: 428,
    title: "Send the lead's ETag in If-Match",
  },
  'messaging.lead.precondition_failed': {
    status: 412,
    title: 'The lead changed since the ETag in If-Match was read',
  },
  'messaging.feedback.not_bot_reply': {
    status: 422,
    title: "Feedback is given on the bot's replies only",
  },
  'messaging.staff.admin_required': {
    status: 403,
    title: 'This route needs the messaging:admin role',
  },
  'messaging.follow_up_rule.not_found': {
    status: 404,
    title: 'No follow-up rule with this id',
  },
  'messaging.follow_up.not_found': {
    status: 404,
    title: 'No follow-up with this id in your scope',
  },
  'messaging.follow_up.not_pending': {
    status: 409,
    title: 'The follow-up is no longer pending',
  },
  'messaging.follow_up.already_pending': {
    status: 409,
    title: 'A manual follow-up of this conversation is already pending',
  },
  'messaging.export.too_large': {
    status: 422,
    title: 'The export would exceed MESSAGING_EXPORT_MAX_ROWS rows; narrow the filter',
  },
  'messaging.faq.not_found': {
    status: 404,
    title: 'No FAQ entry with this id',
  },
  'messaging.faq.archived': {
    status: 409,
    title: 'The FAQ entry is archived',
  },
  'messaging.faq.conflict_not_found': {
    status: 404,
    title: 'No FAQ conflict with this id',
  },
  'messaging.faq.conflict_resolved': {
    status: 409,
    title: 'The FAQ conflict was already resolved',
  },
  'messaging.faq.sync_not_configured': {
    status: 422,
    title: 'FAQ_SYNC_URL is not set',
  },
  'messaging.faq.sync_in_progress': {
    status: 409,
    title: 'A FAQ sync is already running',
  },
  // The knowledge base (README, "Knowledge base").
  'messaging.kb.document_not_found': {
    status: 404,
    title: 'No knowledge-base document with this id',
  },
  'messaging.kb.precondition_failed': {
    status: 412,
    title: 'The document changed since the ETag in If-Match was read',
  },
  'messaging.kb.document_from_faq': {
    status: 409,
    title: 'The document mirrors a FAQ entry; change the entry instead',
  },
  'messaging.kb.document_archived': {
    status: 409,
    title: 'The document is archived (deleted); it cannot be edited',
  },
  // The KB evaluation (README, "Knowledge base", "Evaluation").
  'messaging.kb.evaluation_item_not_found': {
    status: 404,
    title: 'No evaluation item with this id',
  },
  'messaging.kb.evaluation_run_not_found': {
    status: 404,
    title: 'No evaluation run with this id',
  },
  'messaging.kb.evaluation_document_unknown': {
    status: 422,
    title: 'An expected document id names no knowledge-base document',
  },
  'messaging.kb.evaluation_set_empty': {
    status: 422,
    title: 'The evaluation set has no item to run',
  },
  'messaging.kb.evaluation_running': {
    status: 409,
    title: 'An evaluation run is already running',
  },
});
