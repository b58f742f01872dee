/**
 * A reply to a customer on its way out: a row of the outbox (`messaging_messages`, outbound, `pending`)
 * and the request the send API receives for it.
 */

/** A reply taken from the outbox to be sent now. */
export interface OutboxReply {
  id: string;
  phoneNumberId: string;
  payload: Record<string, unknown>;
  /** Send attempts so far, this one included. */
  sendAttempts: number;
}

/**
 * A reply leased to the worker that wrote it (see the effects store), which sends it once the batch that
 * wrote it commits, without waiting for the outbox's claim.
 */
export interface HandedOffReply extends OutboxReply {
  conversationId: string;
}

/**
 * The send API's request for a text reply, posted to `{MESSAGING_API_BASE_URL}/{phone_number_id}/messages`
 * (Graph-compatible). Username-only contacts (no phone number) are addressed by their user id.
 */
export function outboundPayload(
  conversation: { contactPhone: string | null; contactUserId: string | null },
  body: string,
): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: conversation.contactPhone ?? conversation.contactUserId,
    type: 'text',
    text: { preview_url: false, body },
  };
}

/**
 * The send API's request for an approved template (Graph-compatible): the only kind of message the provider
 * delivers outside the 24-hour customer-service window. `parameters` fill the body's placeholders in order.
 */
export function templatePayload(
  conversation: { contactPhone: string | null; contactUserId: string | null },
  template: { name: string; languageCode: string; parameters: readonly string[] },
): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: conversation.contactPhone ?? conversation.contactUserId,
    type: 'template',
    template: {
      name: template.name,
      language: { code: template.languageCode },
      components:
        template.parameters.length === 0
          ? []
          : [{ type: 'body', parameters: template.parameters.map((text) => ({ type: 'text', text })) }],
    },
  };
}
