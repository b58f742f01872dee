import { defineErrors } from '../../../gateway/src/plugin-api.ts';

/**
 * Every error the realtime plugin answers with; each code is documented in ../README.md (a test checks).
 * They travel as problem objects in a socket's `connect_error` data, in acknowledgements and in
 * `session_ended` (README, "Errors"), with the status an HTTP answer would have had.
 */
export const realtimeErrors = defineErrors({
  'realtime.unauthenticated': { status: 401, title: 'A valid session is required to connect' },
  'realtime.handshake.invalid': { status: 400, title: 'The handshake auth object is malformed' },
  'realtime.origin.forbidden': {
    status: 403,
    title: 'A session cookie is only accepted from an allowed origin',
  },
  'realtime.request.invalid': { status: 400, title: 'The message is malformed' },
  'realtime.room.invalid': { status: 400, title: 'Not a room name' },
  'realtime.room.forbidden': { status: 403, title: 'This identity may not join that room' },
  'realtime.room.limit': { status: 400, title: 'Too many rooms on one connection' },
  'realtime.session.ended': { status: 401, title: 'The session was revoked or has expired' },
  'realtime.transport.invalid': {
    status: 400,
    title: 'Not a request the socket.io transport can use (transport, session id or query)',
  },
  'realtime.transport.forbidden': { status: 403, title: 'The socket.io transport refused the request' },
});

export type RealtimeErrorCode = keyof typeof realtimeErrors.specs;
