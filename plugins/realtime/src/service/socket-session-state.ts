import type { HandshakeAuth } from '../domain/messages.ts';
import type { SocketSession } from './socket-identity.ts';

/** What the plugin keeps on each socket (`socket.data`). */
export interface SocketState {
  session: SocketSession;
  /** What the handshake asked for: the last event id seen and the rooms to rejoin. */
  request: HandshakeAuth;
  /** Set once the handshake's replay is over and the socket is in its rooms. */
  ready: boolean;
  /** Subscriptions run one at a time per socket, in the order they were sent. */
  queue: Promise<unknown>;
}
