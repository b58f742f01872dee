/**
 * A dashboard's realtime client (plugins/realtime/README.md, "Protocol" and "Replay"): it connects with the
 * signed-in user's session token, asks for the rooms it shows, and keeps the id of the last event it handled.
 * socket.io reconnects on its own after a network loss or a replica restart; the `auth` callback runs on every
 * (re)connection and sends that id, so the server replays what was missed, in order, before new events. When the
 * server cannot replay (`resync_required`), reload the state over HTTP and carry on from the id it gives.
 *
 * This file is type-checked and run by the test suite against the gateway
 * (plugins/realtime/test/client-example.test.ts).
 */
import { io, type Socket } from 'socket.io-client';

export interface RealtimeEvent {
  id: number;
  type: string;
  rooms: string[];
  createdAt: string;
  payload: Record<string, unknown>;
}

export interface RealtimeOptions {
  /** The gateway's public URL, e.g. https://gateway.example.com */
  url: string;
  /** The user's Auth.js session token (the session cookie's value). Called on every connection: refresh it there. */
  token: () => string | Promise<string>;
  /** Rooms besides the user's own, e.g. `cluster:<id>` or `conversation:<id>`. */
  rooms: string[];
  /** The last event id the client has already handled (e.g. kept in storage across page loads). */
  lastEventId?: number;
  onEvent(event: RealtimeEvent): void;
  /** The server could not replay what was missed: reload from the HTTP API. */
  onResync(reason: string): void | Promise<void>;
  /** The session was revoked or has expired: sign in again. */
  onSessionEnded?(): void;
}

export function connectRealtime(options: RealtimeOptions): {
  socket: Socket;
  lastEventId(): number | undefined;
} {
  let lastEventId = options.lastEventId;
  const socket = io(options.url, {
    path: '/socket.io',
    // Several replicas behind a load balancer: WebSocket only (long polling would need sticky sessions).
    transports: ['websocket'],
    auth: (send) => {
      void Promise.resolve(options.token()).then((token) =>
        send({ token, rooms: options.rooms, ...(lastEventId === undefined ? {} : { lastEventId }) }),
      );
    },
  });
  socket.on('event', (event: RealtimeEvent) => {
    // Ids only grow; one already handled (seen on another replica just before a reconnect) is skipped.
    if (lastEventId !== undefined && event.id <= lastEventId) return;
    lastEventId = event.id;
    options.onEvent(event);
  });
  socket.on('resync_required', (body: { reason: string; lastEventId: number }) => {
    lastEventId = body.lastEventId;
    void options.onResync(body.reason);
  });
  socket.on('ready', (body: { lastEventId: number }) => {
    // Nothing to replay (a first connection): carry on from where the server joined us.
    if (lastEventId === undefined) lastEventId = body.lastEventId;
  });
  socket.on('session_ended', () => options.onSessionEnded?.());
  return { socket, lastEventId: () => lastEventId };
}
