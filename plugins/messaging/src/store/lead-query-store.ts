import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { LeadOrder, LeadPosition } from '../domain/lead-cursor.ts';
import type { LeadFilterQuery } from '../domain/lead-schemas.ts';
import type { LeadConversationRecord, LeadHistoryRecord, LeadRecord } from '../domain/lead-views.ts';
import {
  filterConditions,
  LEAD_COLUMNS,
  type LeadRow,
  scopeCondition,
  SqlParams,
  toLeadRecord,
  whereClause,
} from './lead-rows.ts';

export type LeadFilter = Omit<LeadFilterQuery, 'sort'>;

export interface LeadPageRequest {
  filter: LeadFilter;
  order: LeadOrder;
  /** Rows after this position in the order (null: from the start). */
  after: LeadPosition | null;
  limit: number;
  /** The caller's scope (null: an admin). */
  clusters: readonly string[] | null;
}

/** The sort columns; the SQL text takes only these literals. */
const ORDER_COLUMNS = { createdAt: 'l.created_at', updatedAt: 'l.updated_at' } as const;

/** A timestamp as the cursor holds it: UTC, to the microsecond. */
const positionText = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The rows after a cursor's position. The row comparison alone is exact, but PostgreSQL positions an index
 * scan on a scalar bound of the sort column it meets first, and a range filter on that column (createdTo,
 * say) would win: page 101 then walked every index entry from the range's end down to the cursor (2,051
 * buffers instead of 29, bench/RESULTS.md, "staff API"). The same position as a scalar bound, first, lets the
 * scan start at the cursor.
 */
function keysetConditions(
  column: string,
  descending: boolean,
  after: LeadPosition,
  params: SqlParams,
): string[] {
  const at = `${params.add(after.at)}::timestamptz`;
  const id = `${params.add(after.id)}::uuid`;
  return descending
    ? [`${column} <= ${at}`, `(${column}, l.id) < (${at}, ${id})`]
    : [`${column} >= ${at}`, `(${column}, l.id) > (${at}, ${id})`];
}

/**
 * Reads of messaging_leads for the staff API (README, "Staff API", "Leads"). Every read is limited to the
 * caller's clusters in its WHERE clause; a lead outside them is never read.
 */
export const leadQueryStore = {
  /**
   * One page of a keyset walk: the rows after `after` in the order, the order's column and id breaking
   * ties, so rows inserted during a walk never shift it. Each lead comes with its position.
   */
  async page(
    db: Queryable,
    request: LeadPageRequest,
  ): Promise<Array<{ lead: LeadRecord; position: LeadPosition }>> {
    const params = new SqlParams();
    const column = ORDER_COLUMNS[request.order.key];
    const direction = request.order.descending ? 'DESC' : 'ASC';
    const where = [
      ...(request.after ? keysetConditions(column, request.order.descending, request.after, params) : []),
      ...scopeCondition(request.clusters, params),
      ...filterConditions(request.filter, params),
    ];
    const { rows } = await db.query<LeadRow & { position_at: string }>(
      `SELECT ${LEAD_COLUMNS}, ${positionText(column)} AS position_at
         FROM messaging_leads l
         ${whereClause(where)}
        ORDER BY ${column} ${direction}, l.id ${direction}
        LIMIT ${params.add(request.limit)}`,
      params.values,
    );
    return rows.map((row) => ({ lead: toLeadRecord(row), position: { at: row.position_at, id: row.id } }));
  },

  /** How many leads match, counting no further than `max` (an export's bound costs at most that). */
  async countUpTo(
    db: Queryable,
    filter: LeadFilter,
    clusters: readonly string[] | null,
    max: number,
  ): Promise<number> {
    const params = new SqlParams();
    const where = [...scopeCondition(clusters, params), ...filterConditions(filter, params)];
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n
         FROM (SELECT 1 FROM messaging_leads l ${whereClause(where)} LIMIT ${params.add(max)}) matching`,
      params.values,
    );
    return rows[0]?.n ?? 0;
  },

  /** One lead in the scope, with the conversation it came from (null for a manual lead). */
  async findWithConversation(
    db: Queryable,
    id: string,
    clusters: readonly string[] | null,
  ): Promise<{ lead: LeadRecord; conversation: LeadConversationRecord | null } | null> {
    const params = new SqlParams();
    const where = [`l.id = ${params.add(id)}`, ...scopeCondition(clusters, params)];
    const { rows } = await db.query<LeadRow & ConversationColumns>(
      `SELECT ${LEAD_COLUMNS}, c.id AS c_id, c.cluster_id AS c_cluster_id, c.contact_name AS c_contact_name,
              c.contact_phone AS c_contact_phone, c.contact_user_id AS c_contact_user_id, c.status AS c_status,
              c.assigned_to AS c_assigned_to, c.unread_count AS c_unread_count,
              c.last_message_text AS c_last_message_text, c.last_activity_at AS c_last_activity_at,
              c.created_at AS c_created_at
         FROM messaging_leads l LEFT JOIN messaging_conversations c ON c.id = l.conversation_id
         ${whereClause(where)}`,
      params.values,
    );
    const row = rows[0];
    return row ? { lead: toLeadRecord(row), conversation: toConversation(row) } : null;
  },

  /** Whether the lead exists in the scope. */
  async exists(db: Queryable, id: string, clusters: readonly string[] | null): Promise<boolean> {
    const params = new SqlParams();
    const where = [`l.id = ${params.add(id)}`, ...scopeCondition(clusters, params)];
    const { rowCount } = await db.query(
      `SELECT 1 FROM messaging_leads l ${whereClause(where)}`,
      params.values,
    );
    return rowCount === 1;
  },

  /** The latest `max` changes of a lead's effective status, oldest first. */
  async history(db: Queryable, leadId: string, max: number): Promise<LeadHistoryRecord[]> {
    const { rows } = await db.query<{
      status: LeadHistoryRecord['status'];
      computed_status: LeadHistoryRecord['computedStatus'];
      status_override: LeadHistoryRecord['statusOverride'];
      changed_by: string | null;
      changed_at: Date;
    }>(
      `SELECT status, computed_status, status_override, changed_by, changed_at
         FROM (SELECT * FROM messaging_lead_status_history WHERE lead_id = $1 ORDER BY id DESC LIMIT $2) latest
        ORDER BY id`,
      [leadId, max],
    );
    return rows.map((row) => ({
      status: row.status,
      computedStatus: row.computed_status,
      statusOverride: row.status_override,
      changedBy: row.changed_by,
      changedAt: row.changed_at,
    }));
  },
};

interface ConversationColumns {
  c_id: string | null;
  c_cluster_id: string | null;
  c_contact_name: string | null;
  c_contact_phone: string | null;
  c_contact_user_id: string | null;
  c_status: string;
  c_assigned_to: string | null;
  c_unread_count: number;
  c_last_message_text: string | null;
  c_last_activity_at: Date;
  c_created_at: Date;
}

function toConversation(row: ConversationColumns): LeadConversationRecord | null {
  if (row.c_id === null) return null;
  return {
    id: row.c_id,
    clusterId: row.c_cluster_id,
    contactName: row.c_contact_name,
    contactPhone: row.c_contact_phone,
    contactUserId: row.c_contact_user_id,
    status: row.c_status,
    assignedTo: row.c_assigned_to,
    unreadCount: row.c_unread_count,
    lastMessageText: row.c_last_message_text,
    lastActivityAt: row.c_last_activity_at,
    createdAt: row.c_created_at,
  };
}
