import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import type { ConversationStatus } from '../domain/inbox-schemas.ts';

/** A conversation as the inbox reads it. */
export interface ConversationRow {
  id: string;
  clusterId: string | null;
  contactName: string | null;
  contactPhone: string | null;
  contactUserId: string | null;
  status: ConversationStatus;
  assignedTo: string | null;
  assignedAt: Date | null;
  agentActiveAt: Date | null;
  unreadCount: number;
  lastActivityAt: Date;
  lastMessageText: string | null;
  resolvedAt: Date | null;
  createdAt: Date;
  /** `last_activity_at` in microseconds since the epoch, exactly: the keyset position (JS dates hold ms). */
  sortUs: string;
}

/** Where a page of the inbox starts: after this (last_activity_at in µs, id), in descending order. */
export interface InboxPosition {
  us: number;
  id: string;
}

export interface InboxListFilter {
  status?: ConversationStatus;
  /** Assigned to this user (`assigned=me`), to nobody (null), or either (undefined). */
  assignee?: string | null;
  cluster?: string;
  unread?: boolean;
  /** A LIKE pattern: the search text with its wildcards escaped, wrapped in `%` (lower-cased here). */
  pattern?: string;
}

const COLUMNS = `c.id, c.cluster_id AS "clusterId", c.contact_name AS "contactName",
  c.contact_phone AS "contactPhone", c.contact_user_id AS "contactUserId", c.status, c.assigned_to AS "assignedTo",
  c.assigned_at AS "assignedAt", c.agent_active_at AS "agentActiveAt", c.unread_count AS "unreadCount",
  c.last_activity_at AS "lastActivityAt", c.last_message_text AS "lastMessageText", c.resolved_at AS "resolvedAt",
  c.created_at AS "createdAt", (extract(epoch FROM c.last_activity_at) * 1000000)::bigint::text AS "sortUs"`;

/** A statement's parameters: `p(value)` appends one and answers its placeholder. */
function parameters(values: unknown[] = []) {
  return {
    values,
    p: (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/**
 * The scope as SQL (domain/staff-scope.ts): no condition for an admin (`clusters` null), else the
 * conversation's cluster among the agent's (a conversation routed to no cluster is an admin's only).
 */
function scoped(clusters: readonly string[] | null, p: (value: unknown) => string): string {
  return clusters === null ? 'TRUE' : `c.cluster_id = ANY(${p(clusters)}::uuid[])`;
}

/**
 * The inbox's conversations (README, "Staff API", "Agent inbox"): the staff member's scope, limited in
 * SQL; every list, read and state change of a conversation goes through here, so none can skip the scope.
 */
export const inboxStore = {
  /** One page of the inbox, most recent activity first: `limit` rows after `after`. */
  async list(
    db: Queryable,
    clusters: readonly string[] | null,
    filter: InboxListFilter,
    after: InboxPosition | null,
    limit: number,
  ): Promise<ConversationRow[]> {
    const { values, p } = parameters();
    const where = [scoped(clusters, p)];
    if (filter.status !== undefined) where.push(`c.status = ${p(filter.status)}`);
    if (filter.assignee === null) where.push('c.assigned_to IS NULL');
    else if (filter.assignee !== undefined) where.push(`c.assigned_to = ${p(filter.assignee)}`);
    if (filter.cluster !== undefined) where.push(`c.cluster_id = ${p(filter.cluster)}::uuid`);
    if (filter.unread !== undefined) where.push(filter.unread ? 'c.unread_count > 0' : 'c.unread_count = 0');
    // The pattern is a bound value (never SQL or a regular expression); the trigram index serves it.
    if (filter.pattern !== undefined) where.push(`c.search_text LIKE lower(${p(filter.pattern)})`);
    if (after !== null) {
      where.push(
        `(c.last_activity_at, c.id) < ('epoch'::timestamptz + ${p(after.us)}::bigint * interval '1 microsecond', ${p(after.id)}::uuid)`,
      );
    }
    const { rows } = await db.query<ConversationRow>(
      `SELECT ${COLUMNS} FROM messaging_conversations c
        WHERE ${where.join(' AND ')}
        ORDER BY c.last_activity_at DESC, c.id DESC
        LIMIT ${p(limit)}`,
      values,
    );
    return rows;
  },

  /** The conversation, if it is in the scope. */
  async find(db: Queryable, id: string, clusters: readonly string[] | null): Promise<ConversationRow | null> {
    const { values, p } = parameters([id]);
    const { rows } = await db.query<ConversationRow>(
      `SELECT ${COLUMNS} FROM messaging_conversations c WHERE c.id = $1 AND ${scoped(clusters, p)}`,
      values,
    );
    return rows[0] ?? null;
  },

  /** The conversation in the scope, locked until the caller's transaction ends. */
  async lock(tx: Queryable, id: string, clusters: readonly string[] | null): Promise<ConversationRow | null> {
    const { values, p } = parameters([id]);
    const { rows } = await tx.query<ConversationRow>(
      `SELECT ${COLUMNS} FROM messaging_conversations c WHERE c.id = $1 AND ${scoped(clusters, p)} FOR UPDATE`,
      values,
    );
    return rows[0] ?? null;
  },

  /** Whether the cluster exists and is in the scope. */
  async clusterVisible(
    db: Queryable,
    clusterId: string,
    clusters: readonly string[] | null,
  ): Promise<boolean> {
    if (clusters !== null && !clusters.includes(clusterId)) return false;
    const { rowCount } = await db.query('SELECT 1 FROM messaging_clusters WHERE id = $1', [clusterId]);
    return rowCount === 1;
  },

  /** The clusters in the scope, by name, each saying whether `userId` is a member. */
  async clusters(
    db: Queryable,
    clusters: readonly string[] | null,
    userId: string,
  ): Promise<Array<{ id: string; name: string; member: boolean }>> {
    const { rows } = await db.query<{ id: string; name: string; member: boolean }>(
      `SELECT k.id, k.name,
              EXISTS (SELECT 1 FROM messaging_cluster_members m WHERE m.cluster_id = k.id AND m.user_id = $1) AS member
         FROM messaging_clusters k
        WHERE $2::uuid[] IS NULL OR k.id = ANY($2::uuid[])
        ORDER BY k.name, k.id`,
      [userId, clusters],
    );
    return rows;
  },

  /** No unread messages any more. */
  markRead(db: Queryable, id: string, clusters: readonly string[] | null) {
    return update(db, id, clusters, 'unread_count = 0');
  },

  /**
   * Assigns the conversation to `userId`. Taking it (assigning yourself) also makes it an agent's: the bot
   * goes silent (`agent_active_at`) and a conversation waiting for a person is open again.
   */
  assign(tx: Queryable, id: string, userId: string, take: boolean, now: Date) {
    return update(
      tx,
      id,
      null,
      `assigned_at = CASE WHEN assigned_to IS DISTINCT FROM $2 THEN $3 ELSE assigned_at END, assigned_to = $2,
       agent_active_at = CASE WHEN $4::boolean THEN $3 ELSE agent_active_at END,
       status = CASE WHEN $4::boolean AND status = 'pending' THEN 'open' ELSE status END, updated_at = $3`,
      [userId, now, take],
    );
  },

  unassign(db: Queryable, id: string, clusters: readonly string[] | null, now: Date) {
    return update(db, id, clusters, 'assigned_to = NULL, assigned_at = NULL, updated_at = $2', [now]);
  },

  resolve(db: Queryable, id: string, clusters: readonly string[] | null, now: Date) {
    return update(
      db,
      id,
      clusters,
      `resolved_at = CASE WHEN status = 'resolved' THEN resolved_at ELSE $2 END, status = 'resolved', updated_at = $2`,
      [now],
    );
  },

  reopen(db: Queryable, id: string, clusters: readonly string[] | null, now: Date) {
    return update(
      db,
      id,
      clusters,
      `status = CASE WHEN status = 'resolved' THEN 'open' ELSE status END, resolved_at = NULL, updated_at = $2`,
      [now],
    );
  },

  /** The bot answers the contact's next message again. */
  handBack(db: Queryable, id: string, clusters: readonly string[] | null, now: Date) {
    return update(db, id, clusters, 'agent_active_at = NULL, updated_at = $2', [now]);
  },
};

/**
 * One conversation's state change, in the scope; null when it is not there. `set` is a constant of this
 * store whose placeholders start at $2 (`values`); the id is $1.
 */
async function update(
  db: Queryable,
  id: string,
  clusters: readonly string[] | null,
  set: string,
  values: readonly unknown[] = [],
): Promise<ConversationRow | null> {
  const { values: all, p } = parameters([id, ...values]);
  const { rows } = await db.query<ConversationRow>(
    `UPDATE messaging_conversations c SET ${set} WHERE c.id = $1 AND ${scoped(clusters, p)} RETURNING ${COLUMNS}`,
    all,
  );
  return rows[0] ?? null;
}
