import type { AuditWriter, Clock, Database } from '../../../../gateway/src/plugin-api.ts';
import { kycErrors } from '../errors.ts';
import { auditRecord, type Actor } from '../domain/actor.ts';
import { deliveryStore, type DeliveryView } from '../store/delivery-store.ts';

/** What staff can do with webhook deliveries (README, "Webhooks"): look at them, and send one again. */
export function createWebhookService(deps: {
  db: Database;
  clock: Clock;
  audit: Pick<AuditWriter, 'write'>;
}) {
  const { db, clock } = deps;
  return {
    /** A verification's deliveries, in sending order, each with its attempts. */
    async listForVerification(verificationId: string): Promise<DeliveryView[]> {
      if (!(await deliveryStore.verificationExists(db.pool, verificationId))) {
        throw kycErrors.create('kyc.verification.not_found');
      }
      return deliveryStore.listForVerification(db.pool, verificationId);
    },

    /**
     * Queues a delivery again, due now, whatever its status: a `failed` one after the receiver is fixed,
     * a `delivered` one the receiver lost. It gets a fresh round of KYC_WEBHOOK_MAX_ATTEMPTS attempts
     * and the same body (same delivery id, so a receiver that already has it can tell). A resent earlier
     * event makes later pending events of the same verification wait for it again.
     */
    async resend(id: string, who: Actor): Promise<DeliveryView> {
      // The answer is the delivery as queued again, read before the dispatcher can see it: read after the
      // commit, it might already be delivered (or failed) by then.
      const { requeued, view } = await db.transaction(async (tx) => {
        const row = await deliveryStore.requeue(tx, id, clock.now());
        return { requeued: row, view: row ? await deliveryStore.view(tx, id) : null };
      });
      if (!requeued || !view) throw kycErrors.create('kyc.webhook.not_found');
      await deps.audit.write(
        auditRecord(who, 'kyc.webhook.resent', {
          deliveryId: id,
          verificationId: requeued.verificationId,
          tenantId: requeued.tenantId,
          previousStatus: requeued.previousStatus,
        }),
      );
      return view;
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
