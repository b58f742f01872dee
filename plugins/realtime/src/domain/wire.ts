import type { GatewayError } from '../../../../gateway/src/plugin-api.ts';
import { toProblem } from '../../../../gateway/src/plugin-api.ts';
import type { StoredEvent } from '../store/event-store.ts';
import type { WireEvent } from './messages.ts';

/** An event as clients receive it (README, "Events"). */
export function toWire(event: StoredEvent): WireEvent {
  return {
    id: event.id,
    type: event.type,
    rooms: event.rooms,
    createdAt: event.createdAt.toISOString(),
    payload: event.payload,
  };
}

/** A refusal as clients receive it: the problem object an HTTP answer would carry, keyed by the socket id. */
export function toSocketProblem(error: GatewayError, socketId: string) {
  return toProblem(error, socketId);
}

/** The error a socket.io middleware refuses a handshake with: `connect_error` on the client, problem in `data`. */
export function handshakeRefusal(error: GatewayError, socketId: string): Error & { data: unknown } {
  return Object.assign(new Error(error.code), { data: toSocketProblem(error, socketId) });
}
