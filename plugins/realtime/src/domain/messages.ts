import { z } from 'zod';

/**
 * The shapes of what clients send (README, "Protocol"). Unknown keys are refused rather than ignored, so a
 * client's typo is an error it sees, not a setting silently dropped.
 */
const eventId = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const roomNames = z.array(z.string().max(256)).max(1_000);

/** The handshake's `auth` object: the session token, the last event id seen, the rooms to rejoin. */
export const handshakeAuth = z.strictObject({
  token: z.string().min(1).max(16_384).optional(),
  lastEventId: eventId.optional(),
  rooms: roomNames.optional(),
});
export type HandshakeAuth = z.output<typeof handshakeAuth>;

/** `subscribe`: rooms to join, and optionally the last event id the client already has for them. */
export const subscribeRequest = z.strictObject({ rooms: roomNames.min(1), since: eventId.optional() });
export type SubscribeRequest = z.output<typeof subscribeRequest>;

/** `unsubscribe`: rooms to leave. */
export const unsubscribeRequest = z.strictObject({ rooms: roomNames.min(1) });

/** One event as a client receives it. `id` is the position in the one ordered log every replica reads. */
export interface WireEvent {
  id: number;
  type: string;
  rooms: string[];
  createdAt: string;
  payload: unknown;
}

/** Why a client must reload its state instead of being replayed what it missed. */
export type ResyncReason = 'expired' | 'too_many' | 'unknown';
