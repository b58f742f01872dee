/**
 * A client process of `bench:realtime` (forked by it; see bench/realtime.ts): opens its share of the
 * dashboard sockets over real WebSockets, each an agent joining its cluster's room with its own Auth.js
 * session token, and records the receive time of every `message.created` event the writer caused. A socket
 * that drops reconnects with the last event id it saw, as the client example in plugins/realtime/README.md
 * does, so the replay is part of what is measured.
 *
 * Requests (bench/lib/child-rpc.ts): `connect` (ConnectRequest → ConnectResult), `progress` (events
 * received so far), `report` (SocketReceipts[]), `close`.
 */
import { io, type Socket } from 'socket.io-client';
import { dashboardToken } from '../../test/support/realtime.ts';
import { serveParent } from './child-rpc.ts';
import {
  nowMs,
  seqOf,
  type ConnectRequest,
  type ConnectResult,
  type SocketPlan,
  type SocketReceipts,
} from './realtime-bench-wire.ts';

interface BenchSocket {
  plan: SocketPlan;
  socket: Socket;
  seqs: number[];
  at: number[];
  createdAt: number[];
  lastEventId: number | undefined;
  disconnects: number;
  resyncs: number;
}

interface WireEvent {
  id: number;
  type: string;
  createdAt: string;
  payload: { text?: unknown };
}

const sockets: BenchSocket[] = [];
let received = 0;

/** Opens one socket and resolves once the server said `ready` (rooms joined), or rejects after `timeoutMs`. */
function openSocket(plan: SocketPlan, token: string, timeoutMs: number): Promise<BenchSocket> {
  const state: BenchSocket = {
    plan,
    seqs: [],
    at: [],
    createdAt: [],
    lastEventId: undefined,
    disconnects: 0,
    resyncs: 0,
    socket: io(plan.url, {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      timeout: timeoutMs,
      reconnectionDelay: 500,
      reconnectionDelayMax: 5_000,
      auth: (send) =>
        send({
          token,
          rooms: [`cluster:${plan.clusterId}`],
          ...(state.lastEventId === undefined ? {} : { lastEventId: state.lastEventId }),
        }),
    }),
  };
  record(state);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      state.socket.disconnect();
      reject(new Error(`socket ${plan.index}: not ready within ${timeoutMs} ms`));
    }, timeoutMs);
    state.socket.once('ready', () => {
      clearTimeout(timer);
      resolve(state);
    });
    state.socket.on('connect_error', (err: Error & { data?: { code?: string } }) => {
      // A refusal by the server (it carries a code) is final; a transport error is retried by the client.
      if (err.data?.code === undefined) return;
      clearTimeout(timer);
      state.socket.disconnect();
      reject(new Error(`socket ${plan.index}: refused (${err.data.code})`));
    });
  });
}

/** The receive time is taken first, before anything else the handler does. */
function record(state: BenchSocket): void {
  state.socket.on('event', (event: WireEvent) => {
    const at = nowMs();
    state.lastEventId = event.id;
    if (event.type !== 'message.created') return;
    const seq = seqOf(event.payload.text);
    if (seq === null) return;
    state.seqs.push(seq);
    state.at.push(at);
    state.createdAt.push(Date.parse(event.createdAt));
    received++;
  });
  state.socket.on('ready', (body: { lastEventId: number }) => {
    if (state.lastEventId === undefined || body.lastEventId > state.lastEventId)
      state.lastEventId = body.lastEventId;
  });
  state.socket.on('resync_required', (body: { lastEventId: number }) => {
    state.resyncs++;
    state.lastEventId = body.lastEventId;
  });
  state.socket.on('disconnect', () => state.disconnects++);
}

/** Opens every planned socket, `concurrency` handshakes at a time. */
async function connect(request: ConnectRequest): Promise<ConnectResult> {
  const started = performance.now();
  const failures: string[] = [];
  let next = 0;
  const opener = async () => {
    while (next < request.sockets.length) {
      const plan = request.sockets[next++] as SocketPlan;
      const token = await dashboardToken(
        { sub: plan.sub, email: `${plan.sub}@bench.invalid`, roles: ['agent'] },
        { secret: request.secret, salt: request.cookieName },
      );
      try {
        sockets.push(await openSocket(plan, token, request.timeoutMs));
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
  };
  await Promise.all(Array.from({ length: request.concurrency }, opener));
  return {
    ready: sockets.length,
    failed: failures.length,
    failures: failures.slice(0, 5),
    seconds: (performance.now() - started) / 1000,
  };
}

function report(): SocketReceipts[] {
  return sockets.map((state) => ({
    index: state.plan.index,
    seqs: Int32Array.from(state.seqs),
    at: Float64Array.from(state.at),
    createdAt: Float64Array.from(state.createdAt),
    disconnects: state.disconnects,
    resyncs: state.resyncs,
  }));
}

serveParent({
  connect: (body) => connect(body as ConnectRequest),
  progress: () => received,
  report,
  close: () => {
    for (const state of sockets) state.socket.disconnect();
  },
});
