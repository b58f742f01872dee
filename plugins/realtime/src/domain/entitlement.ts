import type { SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import type { Room } from './rooms.ts';

/**
 * Who may be in which room (README, "Rooms"). The same scope as the staff API's: the wildcard admin and
 * `messaging:admin` see everything; an agent sees what belongs to the clusters they are a member of; the
 * global feeds are for admins and the global recipients of escalations. Decided from the current roles (the
 * session resolver's answer) and the current memberships, read from the database: never from a copy made
 * when the socket connected.
 */
export const ADMIN_ROLES: readonly string[] = ['*', 'messaging:admin'];

/** What the database says about one staff member, and about the conversations whose rooms are asked for. */
export interface StaffFacts {
  /** The clusters the member belongs to. */
  readonly clusters: ReadonlySet<string>;
  /** Whether the member is a global recipient of escalations. */
  readonly globalRecipient: boolean;
  /** Each asked-for conversation's cluster (null: not routed to one; absent: no such conversation). */
  readonly conversationClusters: ReadonlyMap<string, string | null>;
}

export function isAdmin(identity: Pick<SessionIdentity, 'roles'>): boolean {
  return identity.roles.some((role) => ADMIN_ROLES.includes(role));
}

/** Whether `identity` may be in `room`; `facts` is needed only for cluster, conversation and global rooms. */
export function mayJoin(identity: SessionIdentity, room: Room, facts: StaffFacts): boolean {
  switch (room.kind) {
    case 'user':
      return room.id === identity.sub;
    case 'role':
      return identity.roles.includes(room.id);
    case 'cluster':
      return isAdmin(identity) || facts.clusters.has(room.id);
    case 'conversation': {
      if (isAdmin(identity)) return true;
      const cluster = facts.conversationClusters.get(room.id);
      return cluster !== undefined && cluster !== null && facts.clusters.has(cluster);
    }
    case 'global':
      return isAdmin(identity) || facts.globalRecipient;
  }
}

/** Whether deciding on `room` needs facts from the database (so an admin's or own-room check costs no query). */
export function needsFacts(identity: SessionIdentity, room: Room): boolean {
  return (
    !isAdmin(identity) && (room.kind === 'cluster' || room.kind === 'conversation' || room.kind === 'global')
  );
}
