/**
 * The send API's request for a text reply (Graph-compatible: POST {MESSAGING_API_BASE_URL}/{phone_number_id}/messages).
 * Username-only contacts (no phone number) are addressed by their user id.
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
