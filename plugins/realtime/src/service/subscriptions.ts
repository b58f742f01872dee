import type { Socket } from 'socket.io';
import type { Queryable } from '../../../../gateway/src/plugin-api.ts';
import { ownRooms } from '../domain/rooms.ts';
import { toWire } from '../domain/wire.ts';
import type { ResyncReason } from '../domain/messages.ts';
import { decideRooms, type Refusal } from './entitlements.ts';
import type { EventFeed } from './event-feed.ts';
import type { RealtimeMetrics } from './metrics.ts';
import { replayThenJoin } from './replay.ts';
import type { SocketState } from './socket-session-state.ts';

export interface SubscriptionDeps {
  db: Queryable;
  feed: EventFeed;
  metrics: RealtimeMetrics;
  maxEvents: number;
  maxRooms: number;
}

export interface JoinResult {
  rooms: string[];
  refused: Refusal[];
  /** The watermark the socket joined at: every later event in its rooms reaches it live. */
  lastEventId: number;
  replayed: number;
  resync: ResyncReason | null;
}

/**
 * Puts a socket in the rooms it asked for and may join, after replaying what it missed in them since
 * `after` (README, "Replay"). The handshake's call also joins the socket's own user and role rooms.
 */
export async function joinRooms(
  deps: SubscriptionDeps,
  socket: Socket,
  request: { rooms: readonly string[]; after: number | undefined; own: boolean },
): Promise<JoinResult> {
  const state = socket.data as SocketState;
  const identity = state.session.identity;
  const decision = await decideRooms(deps.db, identity, request.rooms);
  const wanted = [...(request.own && identity ? ownRooms(identity) : []), ...decision.granted].filter(
    (room) => !socket.rooms.has(room),
  );
  const roomSpace = deps.maxRooms - (socket.rooms.size - 1);
  const rooms = [...new Set(wanted)].slice(0, Math.max(0, roomSpace));
  const refused = [
    ...decision.refused,
    ...wanted.slice(rooms.length).map((room) => ({ room, code: 'realtime.room.limit' as const })),
  ];
  let lastEventId = deps.feed.watermark;
  const outcome =
    rooms.length === 0
      ? { replayed: 0 }
      : await replayThenJoin(
          { db: deps.db, feed: deps.feed, maxEvents: deps.maxEvents },
          {
            after: request.after,
            rooms,
            emit: (event) => socket.emit('event', toWire(event)),
            join: () => {
              lastEventId = deps.feed.watermark;
              void socket.join(rooms);
            },
            alive: () => socket.connected,
          },
        );
  if ('replayed' in outcome) deps.metrics.replayed(outcome.replayed);
  return {
    rooms,
    refused,
    lastEventId,
    replayed: 'replayed' in outcome ? outcome.replayed : 0,
    resync: 'resync' in outcome ? outcome.resync : null,
  };
}
