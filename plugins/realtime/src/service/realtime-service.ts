import type { Server as HttpServer } from 'node:http';
import type { Server } from 'socket.io';
import {
  type Loop,
  type PluginContext,
  startFailureAudit,
  startLoop,
} from '../../../../gateway/src/plugin-api.ts';
import type { RealtimeEnv } from '../config.ts';
import { toWire } from '../domain/wire.ts';
import { eventStore, type StoredEvent } from '../store/event-store.ts';
import { startEventFeed, type EventFeed } from './event-feed.ts';
import { createRealtimeMetrics, type RealtimeMetrics } from './metrics.ts';
import { recheckSockets } from './recheck.ts';
import { createSocketAuthenticator, type HandshakeInput, type HandshakeOutcome } from './socket-identity.ts';
import type { SubscriptionDeps } from './subscriptions.ts';

/** What the socket server (routes/socket-server.ts) is built with. */
export interface SocketServerDeps {
  server: HttpServer;
  logger: PluginContext<RealtimeEnv>['logger'];
  authenticate(input: HandshakeInput): Promise<HandshakeOutcome>;
  subscriptions: SubscriptionDeps;
}

/** The socket.io namespaces served: the default one only (README, "Protocol"). */
const NAMESPACES = ['/'] as const;

/** What the health route and `GET /api/v1/health/full` show of this replica. */
export interface RealtimeStatus {
  listenerConnected: boolean;
  listenerReconnects: number;
  lastNotifyAt: Date | null;
  lastEventId: number;
  eventsDelivered: number;
  namespaces: string[];
  connectedSockets: number;
}

export interface RealtimeService {
  status(): RealtimeStatus;
  /** Attaches socket.io to the public server once it listens. */
  attach(server: HttpServer): void;
  /** Shutdown begins: drop every socket's connection so its client reconnects to another replica. */
  dropSockets(): void;
  stop(): Promise<void>;
}

/**
 * The realtime plugin's moving parts, wired: the event feed (one listener per replica) delivering to the
 * socket.io server's rooms, the periodic recheck of open sockets, and the retention loop (ADR 0009).
 */
export async function startRealtimeService(
  ctx: PluginContext<RealtimeEnv>,
  sockets: { attach(deps: SocketServerDeps): Server },
): Promise<RealtimeService> {
  const { config } = ctx;
  let io: Server | null = null;
  let feed: EventFeed | null = null;
  const metrics = createRealtimeMetrics(ctx.metrics, {
    sockets: () => io?.engine.clientsCount ?? 0,
    listenerConnected: () => feed?.connected ?? false,
  });
  let firstConnect = true;
  feed = await startEventFeed({
    db: ctx.db,
    logger: ctx.logger,
    clock: ctx.clock,
    heartbeatMs: config.REALTIME_HEARTBEAT_MS,
    deliver: (events) => io && deliver(io, events, metrics, ctx.clock.nowMs()),
    onConnectionChange(connected) {
      if (connected && !firstConnect) metrics.listenerReconnected();
      if (connected) firstConnect = false;
    },
  });
  const activeFeed = feed;
  const prune = startPruneLoop(ctx);
  let recheck: { stop(): void } | undefined;

  return {
    status: () => ({
      listenerConnected: activeFeed.connected,
      listenerReconnects: activeFeed.reconnects,
      lastNotifyAt: activeFeed.lastNotifyAt,
      lastEventId: activeFeed.watermark,
      eventsDelivered: activeFeed.delivered,
      namespaces: io ? [...NAMESPACES] : [],
      connectedSockets: io?.engine.clientsCount ?? 0,
    }),
    attach(server) {
      const failures = startFailureAudit({
        audit: ctx.audit,
        clock: ctx.clock,
        onClose: (fn) => ctx.hooks.onClose(fn),
      });
      io = sockets.attach({
        server,
        logger: ctx.logger,
        authenticate: createSocketAuthenticator({ ctx, mode: ctx.gate.mode, failures, metrics }),
        subscriptions: {
          db: ctx.db,
          feed: activeFeed,
          metrics,
          maxEvents: config.REALTIME_REPLAY_MAX_EVENTS,
          maxRooms: config.REALTIME_MAX_ROOMS_PER_SOCKET,
        },
      });
      recheck = startRecheck(ctx, io);
    },
    dropSockets() {
      // Closing the transport (not a socket.io disconnect) makes clients reconnect on their own.
      io?.engine.close();
    },
    async stop() {
      recheck?.stop();
      io?.engine.close();
      await prune.stop();
      await activeFeed.stop();
    },
  };
}

function deliver(io: Server, events: readonly StoredEvent[], metrics: RealtimeMetrics, nowMs: number): void {
  for (const event of events) {
    io.to(event.rooms).emit('event', toWire(event));
    metrics.delivered(event.type, (nowMs - event.createdAt.getTime()) / 1000);
  }
}

/** Old events are pruned in batches by the core's background loop (README, "Replay"). */
function startPruneLoop(ctx: PluginContext<RealtimeEnv>): Loop {
  return startLoop({
    name: 'realtime-prune',
    intervalMs: ctx.config.REALTIME_PRUNE_INTERVAL_MS,
    logger: ctx.logger,
    pass: () =>
      eventStore.prune(
        ctx.db,
        new Date(ctx.clock.nowMs() - ctx.config.REALTIME_RETENTION_HOURS * 3_600_000),
        ctx.config.REALTIME_PRUNE_BATCH,
      ),
  });
}

/** The recheck runs again an interval after the previous one ended: sweeps never overlap. */
function startRecheck(ctx: PluginContext<RealtimeEnv>, io: Server): { stop(): void } {
  let stopped = false;
  const timer: NodeJS.Timeout = setTimeout(function run() {
    recheckSockets({ io, db: ctx.db, sessions: ctx.sessions, logger: ctx.logger })
      .catch((err: unknown) =>
        ctx.logger.warn({ err: { message: (err as Error).message } }, 'realtime: socket recheck failed'),
      )
      .finally(() => {
        if (!stopped) timer.refresh();
      });
  }, ctx.config.REALTIME_RECHECK_INTERVAL_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
