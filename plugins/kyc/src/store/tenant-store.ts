import type { QuotaPeriod } from '../domain/quota-period.ts';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';

export interface TenantRow {
  id: string;
  name: string;
  sandbox: boolean;
  provider: string;
  quotaLimit: number;
  quotaPeriod: QuotaPeriod;
  webhookUrl: string | null;
  webhookSecret: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, name, sandbox, provider, quota_limit AS "quotaLimit", quota_period AS "quotaPeriod",
  webhook_url AS "webhookUrl", webhook_secret AS "webhookSecret", created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** kyc_tenants (migrations/kyc/0001). */
export const tenantStore = {
  async insert(
    db: Queryable,
    tenant: Omit<TenantRow, 'id' | 'createdAt' | 'updatedAt'>,
    now: Date,
  ): Promise<TenantRow> {
    const { rows } = await db.query<TenantRow>(
      `INSERT INTO kyc_tenants
         (name, sandbox, provider, quota_limit, quota_period, webhook_url, webhook_secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       RETURNING ${COLUMNS}`,
      [
        tenant.name,
        tenant.sandbox,
        tenant.provider,
        tenant.quotaLimit,
        tenant.quotaPeriod,
        tenant.webhookUrl,
        tenant.webhookSecret,
        now,
      ],
    );
    return rows[0] as TenantRow;
  },

  async findById(db: Queryable, id: string): Promise<TenantRow | null> {
    const { rows } = await db.query<TenantRow>(`SELECT ${COLUMNS} FROM kyc_tenants WHERE id = $1`, [id]);
    return rows[0] ?? null;
  },

  async list(db: Queryable): Promise<TenantRow[]> {
    const { rows } = await db.query<TenantRow>(`SELECT ${COLUMNS} FROM kyc_tenants ORDER BY created_at, id`);
    return rows;
  },

  /** Changes the given fields; returns null for an unknown tenant. */
  async update(
    db: Queryable,
    id: string,
    changes: Partial<Pick<TenantRow, 'name' | 'quotaLimit' | 'quotaPeriod' | 'webhookUrl' | 'webhookSecret'>>,
    now: Date,
  ): Promise<TenantRow | null> {
    const { rows } = await db.query<TenantRow>(
      `UPDATE kyc_tenants SET
         name = COALESCE($2, name),
         quota_limit = COALESCE($3, quota_limit),
         quota_period = COALESCE($4, quota_period),
         webhook_url = CASE WHEN $5::boolean THEN $6 ELSE webhook_url END,
         webhook_secret = CASE WHEN $5::boolean THEN $7 ELSE webhook_secret END,
         updated_at = $8
       WHERE id = $1
       RETURNING ${COLUMNS}`,
      [
        id,
        changes.name ?? null,
        changes.quotaLimit ?? null,
        changes.quotaPeriod ?? null,
        'webhookUrl' in changes,
        changes.webhookUrl ?? null,
        changes.webhookSecret ?? null,
        now,
      ],
    );
    return rows[0] ?? null;
  },
};
