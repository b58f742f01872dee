import type { Server, Socket } from 'socket.io';
import type {
  Logger,
  PluginContext,
  Queryable,
  SessionIdentity,
} from '../../../../gateway/src/plugin-api.ts';
import { mayJoin, needsFacts } from '../domain/entitlement.ts';
import { ownRooms, parseRoom, type Room } from '../domain/rooms.ts';
import { toSocketProblem } from '../domain/wire.ts';
import { realtimeErrors } from '../errors.ts';
import { loadFacts } from './entitlements.ts';
import type { SocketState } from './socket-session-state.ts';

/** What verifying a session answers. */
type SessionResult = Awaited<ReturnType<PluginContext<unknown>['sessions']['verify']>>;

/** Sockets checked before yielding to the event loop, so a sweep never holds up event delivery for long. */
const SLICE = 250;

/**
 * Checks every open socket again against the current state (README, "Rooms"): its session (revoked or
 * expired: `session_ended`, then disconnected), its roles (role rooms follow them), and its cluster,
 * conversation and global rooms (left, with `unsubscribed`, when the staff member no longer may be there).
 */
export async function recheckSockets(deps: {
  io: Server;
  db: Queryable;
  sessions: PluginContext<unknown>['sessions'];
  logger: Logger;
}): Promise<void> {
  const sockets = [...deps.io.of('/').sockets.values()].filter(
    (socket) => (socket.data as SocketState).ready,
  );
  // Many sockets share a token (a user's tabs, a server-side client): each token is verified once a sweep.
  const verdicts = new Map<string, SessionResult>();
  await inSlices(sockets, (socket) => recheckSession(deps, socket, verdicts));
  await recheckRooms(
    deps,
    sockets.filter((socket) => socket.connected),
  );
}

async function recheckSession(
  deps: Parameters<typeof recheckSockets>[0],
  socket: Socket,
  verdicts: Map<string, SessionResult>,
): Promise<void> {
  const state = socket.data as SocketState;
  const { token, identity } = state.session;
  if (token === null || identity === null || !socket.connected) return;
  let result = verdicts.get(token);
  if (result === undefined) {
    result = await deps.sessions.verify(token);
    verdicts.set(token, result);
  }
  if (!result.ok) {
    socket.emit('session_ended', toSocketProblem(realtimeErrors.create('realtime.session.ended'), socket.id));
    socket.disconnect(true);
    return;
  }
  state.session = { token, identity: result.identity };
  syncRoleRooms(socket, identity, result.identity);
}

/** Role rooms follow the roles the session has now. */
function syncRoleRooms(socket: Socket, before: SessionIdentity, now: SessionIdentity): void {
  const was = new Set(ownRooms(before));
  const is = new Set(ownRooms(now));
  const left = [...was].filter((room) => !is.has(room) && socket.rooms.has(room));
  for (const room of left) void socket.leave(room);
  for (const room of is) if (!socket.rooms.has(room)) void socket.join(room);
  if (left.length > 0) notifyLeft(socket, left);
}

/** One batch of queries for every socket in a room that depends on cluster membership. */
async function recheckRooms(
  deps: Parameters<typeof recheckSockets>[0],
  sockets: readonly Socket[],
): Promise<void> {
  const watched: Array<{ socket: Socket; identity: SessionIdentity; rooms: Room[] }> = [];
  await inSlices(sockets, (socket) => {
    const identity = (socket.data as SocketState).session.identity;
    if (identity === null) return;
    const rooms = [...socket.rooms]
      .map(parseRoom)
      .filter((room): room is Room => room !== null && needsFacts(identity, room));
    if (rooms.length > 0) watched.push({ socket, identity, rooms });
  });
  if (watched.length === 0) return;
  const users = [...new Set(watched.map((entry) => entry.identity.sub))];
  const conversations = [
    ...new Set(
      watched.flatMap((entry) => entry.rooms.filter((r) => r.kind === 'conversation').map((r) => r.id)),
    ),
  ];
  const facts = await loadFacts(deps.db, users, conversations);
  await inSlices(watched, ({ socket, identity, rooms }) => {
    const staff = facts.get(identity.sub);
    const lost = rooms
      .filter((room) => staff === undefined || !mayJoin(identity, room, staff))
      .map((r) => r.name);
    for (const room of lost) void socket.leave(room);
    if (lost.length > 0) notifyLeft(socket, lost);
  });
}

/**
 * Runs `work` over `items`, yielding to the event loop after every SLICE of them, so that a sweep over
 * thousands of sockets never holds up event delivery for more than a slice's worth of work.
 */
async function inSlices<T>(items: readonly T[], work: (item: T) => void | Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += SLICE) {
    for (const item of items.slice(i, i + SLICE)) await work(item);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function notifyLeft(socket: Socket, rooms: string[]): void {
  socket.emit('unsubscribed', {
    rooms,
    error: toSocketProblem(realtimeErrors.create('realtime.room.forbidden'), socket.id),
  });
}
