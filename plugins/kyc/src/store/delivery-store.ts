import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { isoText } from './sql.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A delivery a worker has claimed: what to send, where, and the attempt number it reserved. */
export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  verificationId: string;
  eventType: string;
  body: string;
  /** This attempt's number (1-based, over the delivery's whole life). */
  attempt: number;
  /** Attempts made before the delivery was last queued; `attempt - queuedAtAttempt` counts this round. */
  queuedAtAttempt: number;
  /** The tenant's current URL and secret: NULL when the tenant has since removed its webhook. */
  url: string | null;
  secret: string | null;
}

export interface AttemptView {
  attempt: number;
  at: string;
  httpStatus: number | null;
  error: string | null;
  /** NULL while in flight, or when the worker stopped before the answer came. */
  durationMs: number | null;
}

export interface DeliveryView {
  id: string;
  verificationId: string;
  tenantId: string;
  type: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  /** The body exactly as sent, parsed. */
  payload: unknown;
  attempts: AttemptView[];
}

/** kyc_webhook_deliveries and kyc_webhook_attempts (migrations/kyc/0003). */
export const deliveryStore = {
  /**
   * Inserts a pending delivery, due at once, if the tenant has a webhook URL; returns whether it did.
   * Runs in the status change's transaction.
   */
  async insertIfSubscribed(
    db: Queryable,
    delivery: {
      id: string;
      tenantId: string;
      verificationId: string;
      eventType: string;
      body: string;
      at: Date;
    },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `INSERT INTO kyc_webhook_deliveries
         (id, tenant_id, verification_id, event_type, body, status, next_attempt_at, created_at)
       SELECT $1, t.id, $3, $4, $5, 'pending', $6, $6
         FROM kyc_tenants t WHERE t.id = $2 AND t.webhook_url IS NOT NULL`,
      [
        delivery.id,
        delivery.tenantId,
        delivery.verificationId,
        delivery.eventType,
        delivery.body,
        delivery.at,
      ],
    );
    return rowCount === 1;
  },

  /**
   * Claims up to `limit` due deliveries in one statement: each gets its next attempt number, an attempt
   * row without outcome, and `next_attempt_at = leaseUntil` (the lease; see webhooks/dispatcher.ts). Rows
   * another worker holds are skipped (several replicas), and a delivery is only due when no earlier
   * delivery of the same verification is still pending, so one verification's events go out in order.
   */
  async claimDue(db: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
    const { rows } = await db.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT d.id FROM kyc_webhook_deliveries d
          WHERE d.status = 'pending' AND d.next_attempt_at <= $1
            AND NOT EXISTS (
              SELECT 1 FROM kyc_webhook_deliveries earlier
               WHERE earlier.verification_id = d.verification_id
                 AND earlier.status = 'pending' AND earlier.seq < d.seq)
          ORDER BY d.next_attempt_at, d.seq
          LIMIT $3
          FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE kyc_webhook_deliveries d
            SET attempts = d.attempts + 1, next_attempt_at = $2
           FROM due WHERE d.id = due.id
         RETURNING d.id, d.tenant_id, d.verification_id, d.event_type, d.body, d.attempts, d.queued_at_attempt
       ), started AS (
         INSERT INTO kyc_webhook_attempts (delivery_id, attempt, at) SELECT id, attempts, $1 FROM claimed
       )
       SELECT c.id, c.tenant_id AS "tenantId", c.verification_id AS "verificationId",
              c.event_type AS "eventType", c.body, c.attempts AS attempt,
              c.queued_at_attempt AS "queuedAtAttempt", t.webhook_url AS url, t.webhook_secret AS secret
         FROM claimed c JOIN kyc_tenants t ON t.id = c.tenant_id`,
      [now, leaseUntil, limit],
    );
    return rows;
  },

  /**
   * Records how an attempt ended and settles the delivery: delivered, failed, or pending again at
   * `nextAttemptAt`. The delivery is left alone when its attempt count moved on (its lease expired and
   * another worker claimed it) or it is no longer pending; returns whether it was settled.
   */
  async settle(
    db: Queryable,
    outcome: {
      id: string;
      attempt: number;
      httpStatus: number | null;
      error: string | null;
      durationMs: number;
      status: DeliveryStatus;
      nextAttemptAt: Date | null;
      at: Date;
    },
  ): Promise<boolean> {
    const { rowCount } = await db.query(
      `WITH finished AS (
         UPDATE kyc_webhook_attempts SET http_status = $3, error = $4, duration_ms = $5
          WHERE delivery_id = $1 AND attempt = $2
       )
       UPDATE kyc_webhook_deliveries
          SET status = $6, next_attempt_at = $7,
              last_error = CASE WHEN $6 = 'delivered' THEN NULL ELSE $4 END,
              delivered_at = CASE WHEN $6 = 'delivered' THEN $8 ELSE delivered_at END
        WHERE id = $1 AND attempts = $2 AND status = 'pending'`,
      [
        outcome.id,
        outcome.attempt,
        outcome.httpStatus,
        outcome.error,
        outcome.durationMs,
        outcome.status,
        outcome.nextAttemptAt,
        outcome.at,
      ],
    );
    return rowCount === 1;
  },

  /** Queues a delivery again, due at `now`, whatever its status; null for an unknown id. */
  async requeue(
    db: Queryable,
    id: string,
    now: Date,
  ): Promise<{ verificationId: string; tenantId: string; previousStatus: DeliveryStatus } | null> {
    const { rows } = await db.query<{
      verificationId: string;
      tenantId: string;
      previousStatus: DeliveryStatus;
    }>(
      `WITH before AS (SELECT id, status FROM kyc_webhook_deliveries WHERE id = $1 FOR UPDATE)
       UPDATE kyc_webhook_deliveries d
          SET status = 'pending', next_attempt_at = $2, queued_at_attempt = d.attempts
         FROM before WHERE d.id = before.id
       RETURNING d.verification_id AS "verificationId", d.tenant_id AS "tenantId",
                 before.status AS "previousStatus"`,
      [id, now],
    );
    return rows[0] ?? null;
  },

  /** Deletes deliveries (and their attempts) delivered before `before`; failed ones stay. */
  async sweepDelivered(db: Queryable, before: Date): Promise<void> {
    await db.query("DELETE FROM kyc_webhook_deliveries WHERE status = 'delivered' AND delivered_at < $1", [
      before,
    ]);
  },

  async verificationExists(db: Queryable, verificationId: string): Promise<boolean> {
    const { rowCount } = await db.query('SELECT 1 FROM kyc_verifications WHERE id = $1', [verificationId]);
    return rowCount === 1;
  },

  /** A verification's deliveries in the order they are sent, each with its attempts. */
  async listForVerification(db: Queryable, verificationId: string): Promise<DeliveryView[]> {
    return (
      await db.query<{ view: DeliveryView }>(
        DELIVERY_SELECT + ' WHERE d.verification_id = $1 ORDER BY d.seq',
        [verificationId],
      )
    ).rows.map((row) => row.view);
  },

  async view(db: Queryable, id: string): Promise<DeliveryView | null> {
    const { rows } = await db.query<{ view: DeliveryView }>(`${DELIVERY_SELECT} WHERE d.id = $1`, [id]);
    return rows[0]?.view ?? null;
  },
};

const DELIVERY_SELECT = `
  SELECT json_build_object(
    'id', d.id, 'verificationId', d.verification_id, 'tenantId', d.tenant_id, 'type', d.event_type,
    'status', d.status, 'attemptCount', d.attempts, 'nextAttemptAt', ${isoText('d.next_attempt_at')},
    'lastError', d.last_error, 'createdAt', ${isoText('d.created_at')},
    'deliveredAt', ${isoText('d.delivered_at')},
    'payload', d.body::json,
    'attempts', COALESCE((
      SELECT json_agg(json_build_object(
               'attempt', a.attempt, 'at', ${isoText('a.at')}, 'httpStatus', a.http_status, 'error', a.error,
               'durationMs', a.duration_ms) ORDER BY a.attempt)
        FROM kyc_webhook_attempts a WHERE a.delivery_id = d.id), '[]'::json)
  ) AS view
  FROM kyc_webhook_deliveries d`;
