import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { isoText } from './sql.ts';
import { VERIFICATION_CHANNEL } from '../domain/change-channels.ts';
import type { VerificationStatus } from '../domain/state-machine.ts';
import type { VerificationView } from '../domain/api-schemas.ts';
import type { VerificationType } from '../domain/verification-types.ts';

export interface VerificationRow {
  id: string;
  tenantId: string;
  type: VerificationType;
  subjectExternalRef: string;
  status: VerificationStatus;
  sandbox: boolean;
  provider: string;
  billable: boolean;
  decisionReason: string | null;
  nextCheckAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  decidedAt: Date | null;
}

const COLUMNS = `id, tenant_id AS "tenantId", type, subject_external_ref AS "subjectExternalRef", status,
  sandbox, provider, billable, decision_reason AS "decisionReason", next_check_at AS "nextCheckAt",
  expires_at AS "expiresAt", created_at AS "createdAt", updated_at AS "updatedAt", decided_at AS "decidedAt"`;

/** The public view in one query: the row and its history as JSON, timestamps already in ISO-8601 UTC. */
const VIEW_SELECT = `
  SELECT json_build_object(
    'id', v.id, 'type', v.type, 'subjectExternalRef', v.subject_external_ref, 'status', v.status,
    'sandbox', v.sandbox, 'decisionReason', v.decision_reason,
    'createdAt', ${isoText('v.created_at')},
    'updatedAt', ${isoText('v.updated_at')},
    'decidedAt', ${isoText('v.decided_at')},
    'expiresAt', ${isoText('v.expires_at')},
    'history', COALESCE((
      SELECT json_agg(json_build_object(
               'from', e.from_status, 'to', e.to_status, 'reason', e.reason,
               'at', ${isoText('e.at')}) ORDER BY e.id)
        FROM kyc_verification_events e WHERE e.verification_id = v.id), '[]'::json)
  ) AS view
  FROM kyc_verifications v`;

/** kyc_verifications and kyc_verification_events (migrations/kyc/0002). */
export const verificationStore = {
  /** A new verification (`pending`) and its first history entry, atomically in one statement. */
  async insertInitiated(
    db: Queryable,
    v: Omit<VerificationRow, 'id' | 'updatedAt' | 'decisionReason' | 'decidedAt' | 'status'>,
  ): Promise<VerificationRow> {
    const { rows } = await db.query<VerificationRow>(
      `WITH v AS (
         INSERT INTO kyc_verifications (tenant_id, type, subject_external_ref, status, sandbox, provider, billable,
           next_check_at, expires_at, created_at, updated_at)
         VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, $9)
         RETURNING ${COLUMNS}
       ), e AS (
         INSERT INTO kyc_verification_events (verification_id, from_status, to_status, reason, actor, at)
         SELECT id, NULL, 'pending', 'initiated', 'tenant', $9 FROM v
       )
       SELECT * FROM v`,
      [
        v.tenantId,
        v.type,
        v.subjectExternalRef,
        v.sandbox,
        v.provider,
        v.billable,
        v.nextCheckAt,
        v.expiresAt,
        v.createdAt,
      ],
    );
    return rows[0] as VerificationRow;
  },

  async addEvent(
    db: Queryable,
    event: {
      verificationId: string;
      from: VerificationStatus | null;
      to: VerificationStatus;
      reason: string | null;
      actor: string;
      at: Date;
    },
  ): Promise<void> {
    await db.query(
      `INSERT INTO kyc_verification_events (verification_id, from_status, to_status, reason, actor, at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [event.verificationId, event.from, event.to, event.reason, event.actor, event.at],
    );
  },

  /** The public view of a tenant's verification; null when it does not exist or is another tenant's. */
  async view(db: Queryable, tenantId: string, id: string): Promise<VerificationView | null> {
    const { rows } = await db.query<{ view: VerificationView }>(
      `${VIEW_SELECT} WHERE v.id = $1 AND v.tenant_id = $2`,
      [id, tenantId],
    );
    return rows[0]?.view ?? null;
  },

  async viewById(db: Queryable, id: string): Promise<VerificationView | null> {
    const { rows } = await db.query<{ view: VerificationView }>(`${VIEW_SELECT} WHERE v.id = $1`, [id]);
    return rows[0]?.view ?? null;
  },

  /** Locks one verification for a change of status. */
  async lock(db: Queryable, id: string): Promise<VerificationRow | null> {
    const { rows } = await db.query<VerificationRow>(
      `SELECT ${COLUMNS} FROM kyc_verifications WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  },

  /** Locks up to `limit` verifications whose provider step is due, skipping those another worker holds. */
  async lockDue(db: Queryable, now: Date, limit: number): Promise<VerificationRow[]> {
    const { rows } = await db.query<VerificationRow>(
      `SELECT ${COLUMNS} FROM kyc_verifications
        WHERE next_check_at <= $1 AND status IN ('pending', 'processing')
        ORDER BY next_check_at
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows;
  },

  /** Locks open verifications past their expiry. */
  async lockExpired(db: Queryable, now: Date, limit: number): Promise<VerificationRow[]> {
    const { rows } = await db.query<VerificationRow>(
      `SELECT ${COLUMNS} FROM kyc_verifications
        WHERE expires_at <= $1 AND status IN ('pending', 'processing')
        LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [now, limit],
    );
    return rows;
  },

  async update(
    db: Queryable,
    id: string,
    change: {
      status: VerificationStatus;
      decisionReason: string | null;
      decidedAt: Date | null;
      nextCheckAt: Date | null;
      at: Date;
    },
  ): Promise<void> {
    await db.query(
      `UPDATE kyc_verifications
          SET status = $2, decision_reason = COALESCE($3, decision_reason), decided_at = COALESCE($4, decided_at),
              next_check_at = $5, updated_at = $6
        WHERE id = $1`,
      [id, change.status, change.decisionReason, change.decidedAt, change.nextCheckAt, change.at],
    );
  },

  /** Sets when the worker next asks the provider; null: never by itself (a callback or a reviewer decides). */
  async setNextCheck(db: Queryable, id: string, nextCheckAt: Date | null): Promise<void> {
    await db.query('UPDATE kyc_verifications SET next_check_at = $2 WHERE id = $1', [id, nextCheckAt]);
  },

  /** Tells every replica's cache that the verification changed; run it inside the changing transaction. */
  async notifyChanged(db: Queryable, id: string): Promise<void> {
    await db.query(`SELECT pg_notify('${VERIFICATION_CHANNEL}', $1)`, [id]);
  },

  /** Initiations of a tenant since `from` (all, and those that consumed quota). */
  async countSince(
    db: Queryable,
    tenantId: string,
    from: Date,
  ): Promise<{ total: number; billable: number }> {
    const { rows } = await db.query<{ total: number; billable: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE billable)::int AS billable
         FROM kyc_verifications WHERE tenant_id = $1 AND created_at >= $2`,
      [tenantId, from],
    );
    return rows[0] ?? { total: 0, billable: 0 };
  },
};
