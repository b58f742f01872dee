import { Server, type Socket } from 'socket.io';
import type { z } from 'zod';
import { handshakeAuth, subscribeRequest, unsubscribeRequest } from '../domain/messages.ts';
import { handshakeRefusal, toSocketProblem } from '../domain/wire.ts';
import { realtimeErrors } from '../errors.ts';
import type { SocketServerDeps } from '../service/realtime-service.ts';
import { SOCKET_PATH } from '../service/socket-identity.ts';
import type { SocketState } from '../service/socket-session-state.ts';
import { joinRooms } from '../service/subscriptions.ts';
import { answerTransportErrorsAsProblems } from './transport-errors.ts';

/** The largest message a client may send: subscriptions are small. */
const MAX_CLIENT_MESSAGE_BYTES = 100_000;

type Ack = (answer: unknown) => void;

/**
 * The socket.io server on the gateway's own HTTP server (README, "Protocol"): path `/socket.io`, the
 * default namespace. The handshake is authenticated before the connection exists; a connected socket is
 * replayed what it missed, put in its rooms, and told it is `ready`; later it may `subscribe` and
 * `unsubscribe`.
 */
export function attachSocketServer(deps: SocketServerDeps): Server {
  const io = new Server(deps.server, {
    path: SOCKET_PATH,
    serveClient: false,
    maxHttpBufferSize: MAX_CLIENT_MESSAGE_BYTES,
  });
  answerTransportErrorsAsProblems(io);
  io.use((socket, next) => {
    void handshake(deps, socket).then(next, (err: unknown) => {
      deps.logger.error({ err }, 'realtime: handshake failed');
      next(new Error('internal'));
    });
  });
  io.on('connection', (socket) => {
    void connected(deps, socket).catch((err: unknown) => {
      deps.logger.error({ err }, 'realtime: setting up a socket failed; disconnecting it');
      socket.disconnect(true);
    });
  });
  return io;
}

async function handshake(deps: SocketServerDeps, socket: Socket): Promise<Error | undefined> {
  const parsed = handshakeAuth.safeParse(socket.handshake.auth ?? {});
  if (!parsed.success)
    return handshakeRefusal(realtimeErrors.create('realtime.handshake.invalid'), socket.id);
  const outcome = await deps.authenticate({
    token: parsed.data.token,
    headers: socket.handshake.headers,
    socketId: socket.id,
    ip: socket.handshake.address || null,
  });
  if (!outcome.ok) return handshakeRefusal(outcome.error, socket.id);
  const state: SocketState = {
    session: outcome.session,
    request: parsed.data,
    ready: false,
    queue: Promise.resolve(),
  };
  socket.data = state;
  return undefined;
}

/** A new socket: replay, rooms, `ready`; then it may subscribe. */
async function connected(deps: SocketServerDeps, socket: Socket): Promise<void> {
  const state = socket.data as SocketState;
  socket.on('subscribe', (payload: unknown, ack: unknown) =>
    serialised(state, () => subscribe(deps, socket, payload, ack)),
  );
  socket.on('unsubscribe', (payload: unknown, ack: unknown) =>
    serialised(state, () => Promise.resolve(unsubscribe(socket, payload, ack))),
  );
  await serialised(state, async () => {
    const joined = await joinRooms(deps.subscriptions, socket, {
      rooms: state.request.rooms ?? [],
      after: state.request.lastEventId,
      own: true,
    });
    if (joined.resync)
      socket.emit('resync_required', { reason: joined.resync, lastEventId: joined.lastEventId });
    state.ready = true;
    socket.emit('ready', {
      lastEventId: joined.lastEventId,
      rooms: [...socket.rooms].filter((room) => room !== socket.id),
      refused: joined.refused,
      replayed: joined.replayed,
      identity: state.session.identity ? { sub: state.session.identity.sub } : null,
    });
  });
}

async function subscribe(
  deps: SocketServerDeps,
  socket: Socket,
  payload: unknown,
  ack: unknown,
): Promise<void> {
  const request = parse(subscribeRequest, payload, socket, ack);
  if (!request) return;
  const joined = await joinRooms(deps.subscriptions, socket, {
    rooms: request.rooms,
    after: request.since,
    own: false,
  });
  answer(ack, {
    rooms: joined.rooms,
    refused: joined.refused,
    lastEventId: joined.lastEventId,
    replayed: joined.replayed,
    ...(joined.resync ? { resync: joined.resync } : {}),
  });
}

function unsubscribe(socket: Socket, payload: unknown, ack: unknown): void {
  const request = parse(unsubscribeRequest, payload, socket, ack);
  if (!request) return;
  const left = request.rooms.filter((room) => room !== socket.id && socket.rooms.has(room));
  for (const room of left) void socket.leave(room);
  answer(ack, { rooms: left });
}

function parse<T>(schema: z.ZodType<T>, payload: unknown, socket: Socket, ack: unknown): T | null {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const error = realtimeErrors.create('realtime.request.invalid', {
    extensions: {
      errors: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    },
  });
  answer(ack, { error: toSocketProblem(error, socket.id) });
  return null;
}

function answer(ack: unknown, body: unknown): void {
  if (typeof ack === 'function') (ack as Ack)(body);
}

/** Runs a socket's requests one after another, so a flood of subscriptions costs one query at a time. */
function serialised(state: SocketState, work: () => Promise<void>): Promise<void> {
  const next = state.queue.then(work, work);
  state.queue = next.catch(() => undefined);
  return next;
}
