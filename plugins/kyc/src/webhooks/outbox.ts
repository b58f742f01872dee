import { randomUUID } from 'node:crypto';
import type { StatusChangeListener } from '../service/verification/transition.ts';
import { deliveryStore } from '../store/delivery-store.ts';
import { STATUS_CHANGED_EVENT, statusChangedEvent } from './payload.ts';

/**
 * The outbox's write side (README, "Retries and order"): a status-change listener that, when the tenant has a
 * webhook URL, inserts one pending delivery in the transaction of the change. Sending is the
 * dispatcher's job, later: a rolled-back change leaves no delivery, a committed one always has one,
 * and no HTTP call ever runs inside a verification's transaction.
 *
 * The body is serialized here, once, and stored as text, so every attempt and resend sends (and signs)
 * the same bytes.
 */
export const enqueueStatusWebhook: StatusChangeListener = async (tx, change) => {
  const id = randomUUID();
  await deliveryStore.insertIfSubscribed(tx, {
    id,
    tenantId: change.verification.tenantId,
    verificationId: change.verification.id,
    eventType: STATUS_CHANGED_EVENT,
    body: JSON.stringify(statusChangedEvent(id, change)),
    at: change.at,
  });
};
