import { isCleanIdentifier } from '../../../../gateway/src/plugin-api.ts';

/** The five kinds of room (README, "Rooms"); a room's name is `<kind>:<id>`. */
export const ROOM_KINDS = ['user', 'role', 'cluster', 'conversation', 'global'] as const;
export type RoomKind = (typeof ROOM_KINDS)[number];

export interface Room {
  readonly name: string;
  readonly kind: RoomKind;
  readonly id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const GLOBAL_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
/** User ids and roles are the identity's own text (at most 200 characters, like the tables that hold them). */
const MAX_TEXT_ID = 200;

const validId: Record<RoomKind, (id: string) => boolean> = {
  user: (id) => id.length <= MAX_TEXT_ID && isCleanIdentifier(id),
  role: (id) => id.length <= MAX_TEXT_ID && isCleanIdentifier(id),
  cluster: (id) => UUID.test(id),
  conversation: (id) => UUID.test(id),
  global: (id) => GLOBAL_NAME.test(id),
};

/** Reads a room name a client sent; null when it is not one (unknown kind, empty or malformed id). */
export function parseRoom(name: unknown): Room | null {
  if (typeof name !== 'string' || name.length > MAX_TEXT_ID + 20) return null;
  const colon = name.indexOf(':');
  if (colon < 0) return null;
  const kind = name.slice(0, colon) as RoomKind;
  const id = name.slice(colon + 1);
  if (!ROOM_KINDS.includes(kind) || id === '' || !validId[kind](id)) return null;
  return { name, kind, id };
}

/** The rooms a socket joins on its own: its user's and one per role it holds. */
export function ownRooms(identity: { sub: string; roles: readonly string[] }): string[] {
  return [`user:${identity.sub}`, ...identity.roles.map((role) => `role:${role}`)];
}
