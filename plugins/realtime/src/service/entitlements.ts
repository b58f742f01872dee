import type { Queryable, SessionIdentity } from '../../../../gateway/src/plugin-api.ts';
import { mayJoin, needsFacts, type StaffFacts } from '../domain/entitlement.ts';
import { parseRoom, type Room } from '../domain/rooms.ts';
import type { RealtimeErrorCode } from '../errors.ts';
import { staffStore } from '../store/staff-store.ts';

export interface Refusal {
  room: string;
  code: RealtimeErrorCode;
}

export interface RoomDecision {
  granted: string[];
  refused: Refusal[];
}

const NO_FACTS: StaffFacts = { clusters: new Set(), globalRecipient: false, conversationClusters: new Map() };

/**
 * Decides which of the asked-for rooms an identity may join, from the database as it is now. Anonymous
 * sockets (accepted while API_AUTH_MODE is not `enforce`) may join none.
 */
export async function decideRooms(
  db: Queryable,
  identity: SessionIdentity | null,
  names: readonly string[],
): Promise<RoomDecision> {
  const decision: RoomDecision = { granted: [], refused: [] };
  const rooms: Room[] = [];
  for (const name of new Set(names)) {
    const room = parseRoom(name);
    if (room === null) decision.refused.push({ room: String(name), code: 'realtime.room.invalid' });
    else if (identity === null) decision.refused.push({ room: name, code: 'realtime.room.forbidden' });
    else rooms.push(room);
  }
  if (identity === null || rooms.length === 0) return decision;
  const facts = rooms.some((room) => needsFacts(identity, room))
    ? (await loadFacts(db, [identity.sub], conversationsOf(rooms))).get(identity.sub)
    : undefined;
  for (const room of rooms) {
    if (mayJoin(identity, room, facts ?? NO_FACTS)) decision.granted.push(room.name);
    else decision.refused.push({ room: room.name, code: 'realtime.room.forbidden' });
  }
  return decision;
}

/** The conversation ids among some rooms. */
export function conversationsOf(rooms: readonly Room[]): string[] {
  return rooms.filter((room) => room.kind === 'conversation').map((room) => room.id);
}

/** Facts for many staff members at once (three queries however many): the periodic recheck's batch. */
export async function loadFacts(
  db: Queryable,
  userIds: readonly string[],
  conversationIds: readonly string[],
): Promise<Map<string, StaffFacts>> {
  const [clusters, globals, conversationClusters] = await Promise.all([
    staffStore.clusters(db, userIds),
    staffStore.globalRecipients(db, userIds),
    conversationIds.length > 0
      ? staffStore.conversationClusters(db, conversationIds)
      : Promise.resolve(new Map<string, string | null>()),
  ]);
  return new Map(
    userIds.map((user) => [
      user,
      {
        clusters: clusters.get(user) ?? new Set<string>(),
        globalRecipient: globals.has(user),
        conversationClusters,
      },
    ]),
  );
}
