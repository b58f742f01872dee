import { isCleanIdentifier, type SessionIdentity } from '../../../../gateway/src/plugin-api.ts';

/**
 * Who may see and change what in the staff API (README, "Staff API", "Who sees what"): the one place the
 * rule is written. Holders of the wildcard role `*` or of `messaging:admin` see every conversation, lead and
 * message; anyone else is an agent, who sees what belongs to the clusters they are a member of (the
 * `messaging cluster` commands manage memberships). A record outside the scope is answered as if it did not
 * exist. The scope is built for each request from the session resolver's current roles and the current
 * memberships, never from a copy made at sign-in. The realtime plugin applies the same rule to its rooms.
 */
export const ADMIN_ROLES: readonly string[] = ['*', 'messaging:admin'];

/** The longest staff member id the messaging tables hold (assignee, reply author, feedback author). */
export const STAFF_ID_MAX = 200;

/**
 * Whether a session's `sub` can name a staff member here: what the tables store (1-200 characters, checked by the
 * database too) and clean text. A dashboard token is the dashboard's word, so its `sub` may be anything.
 */
export function isStaffId(sub: string): boolean {
  return sub.length >= 1 && sub.length <= STAFF_ID_MAX && isCleanIdentifier(sub);
}

export interface StaffScope {
  /** The staff member's id (`sub`): authorship, assignment, feedback and audit rows name it. */
  readonly userId: string;
  /** Sees everything. */
  readonly admin: boolean;
  /** The clusters an agent sees (an admin's memberships are listed too, for "my clusters" filters). */
  readonly clusters: readonly string[];
}

export function isAdmin(identity: Pick<SessionIdentity, 'roles'>): boolean {
  return identity.roles.some((role) => ADMIN_ROLES.includes(role));
}

/** The scope of a verified identity, given its current cluster memberships. */
export function staffScope(identity: SessionIdentity, clusters: readonly string[]): StaffScope {
  return { userId: identity.sub, admin: isAdmin(identity), clusters };
}

/** Whether a record of `clusterId` (null: routed to no cluster) is in the scope. */
export function inScope(scope: StaffScope, clusterId: string | null): boolean {
  return scope.admin || (clusterId !== null && scope.clusters.includes(clusterId));
}

/**
 * The clusters a query must be limited to: null for an admin (no limit), else the agent's clusters (an
 * empty list matches nothing). Stores turn this into `cluster_id = ANY($n)`.
 */
export function clusterLimit(scope: StaffScope): readonly string[] | null {
  return scope.admin ? null : scope.clusters;
}
