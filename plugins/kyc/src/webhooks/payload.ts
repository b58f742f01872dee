import type { VerificationStatus } from '../domain/state-machine.ts';
import type { VerificationType } from '../domain/verification-types.ts';
import type { StatusChange } from '../service/verification/transition.ts';

export const STATUS_CHANGED_EVENT = 'verification.status_changed';

/**
 * The body of a `verification.status_changed` delivery (README, "Webhooks"). `id` is the delivery id
 * (also in the `Gatehouse-Delivery` header): receivers deduplicate on it, since a delivery may arrive
 * more than once (a retry after a lost answer, a manual resend). The verification is as it was right
 * after this change; the actor is left out on purpose (it names staff members).
 */
export interface StatusChangedEvent {
  id: string;
  type: typeof STATUS_CHANGED_EVENT;
  /** When the change happened (ISO-8601 UTC), not when this attempt was made. */
  createdAt: string;
  data: {
    verification: {
      id: string;
      type: VerificationType;
      subjectExternalRef: string;
      status: VerificationStatus;
      sandbox: boolean;
      decisionReason: string | null;
    };
    from: VerificationStatus;
    to: VerificationStatus;
    reason: string | null;
  };
}

/** Builds the event for one status change; pure, so the exact body is decided once and stored. */
export function statusChangedEvent(deliveryId: string, change: StatusChange): StatusChangedEvent {
  const v = change.verification;
  return {
    id: deliveryId,
    type: STATUS_CHANGED_EVENT,
    createdAt: change.at.toISOString(),
    data: {
      verification: {
        id: v.id,
        type: v.type,
        subjectExternalRef: v.subjectExternalRef,
        status: v.status,
        sandbox: v.sandbox,
        decisionReason: v.decisionReason,
      },
      from: change.from,
      to: change.to,
      reason: change.reason,
    },
  };
}
