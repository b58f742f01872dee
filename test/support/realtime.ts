import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type { Queryable } from '../../gateway/src/plugin-api.ts';
import { gateEnv, mintSession } from './gate.ts';

/** The env of a gateway running the realtime plugin (with auth and messaging) in a gate phase. */
export function realtimeEnv(
  mode: 'disabled' | 'warn' | 'enforce',
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...gateEnv(mode),
    GATEWAY_PLUGINS: 'auth,messaging,realtime',
    MESSAGING_API_BASE_URL: 'http://127.0.0.1:9',
    MESSAGING_WORKER_INTERVAL_MS: '60000',
    REALTIME_RECHECK_INTERVAL_MS: '200',
    REALTIME_HEARTBEAT_MS: '1000',
    ...extra,
  };
}

export interface ReceivedEvent {
  id: number;
  type: string;
  rooms: string[];
  createdAt: string;
  payload: Record<string, unknown>;
}

export interface Ready {
  lastEventId: number;
  rooms: string[];
  refused: Array<{ room: string; code: string }>;
  replayed: number;
}

/**
 * A dashboard's socket.io client over a real WebSocket, recording everything the server sends, in order.
 * `lastEventId` is sent on every (re)connection, as the client example in plugins/realtime/README.md does.
 */
export class RealtimeClient {
  readonly events: ReceivedEvent[] = [];
  readonly resyncs: Array<{ reason: string; lastEventId: number }> = [];
  readonly readies: Ready[] = [];
  readonly endings: Array<Record<string, unknown>> = [];
  readonly unsubscribed: Array<{ rooms: string[] }> = [];
  readonly errors: Array<{ message: string; data: Record<string, unknown> | undefined }> = [];
  /** Why the socket disconnected, each time it did (socket.io's reasons, e.g. `ping timeout`). */
  readonly disconnects: string[] = [];
  readonly socket: Socket;
  lastEventId: number | undefined;

  constructor(
    url: string,
    options: {
      token?: string;
      rooms?: string[];
      lastEventId?: number;
      headers?: Record<string, string>;
      reconnection?: boolean;
    } = {},
  ) {
    this.lastEventId = options.lastEventId;
    this.socket = io(url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: options.reconnection ?? false,
      reconnectionDelay: 50,
      reconnectionDelayMax: 200,
      extraHeaders: options.headers,
      auth: (send) =>
        send({
          ...(options.token === undefined ? {} : { token: options.token }),
          ...(options.rooms === undefined ? {} : { rooms: options.rooms }),
          ...(this.lastEventId === undefined ? {} : { lastEventId: this.lastEventId }),
        }),
    });
    this.socket.on('event', (event: ReceivedEvent) => {
      this.events.push(event);
      this.lastEventId = event.id;
    });
    this.socket.on('resync_required', (body: { reason: string; lastEventId: number }) => {
      this.resyncs.push(body);
      this.lastEventId = body.lastEventId;
    });
    this.socket.on('ready', (body: Ready) => {
      this.readies.push(body);
      if (this.lastEventId === undefined || body.lastEventId > this.lastEventId)
        this.lastEventId = body.lastEventId;
    });
    this.socket.on('session_ended', (body: Record<string, unknown>) => this.endings.push(body));
    this.socket.on('unsubscribed', (body: { rooms: string[] }) => this.unsubscribed.push(body));
    this.socket.on('disconnect', (reason: string) => this.disconnects.push(reason));
    this.socket.on('connect_error', (err: Error & { data?: Record<string, unknown> }) =>
      this.errors.push({ message: err.message, data: err.data }),
    );
  }

  /** Resolves with the `ready` message of the `count`-th connection. */
  async ready(count = 1, timeoutMs = 10_000): Promise<Ready> {
    return this.until(() => this.readies[count - 1], `ready #${count}`, timeoutMs);
  }

  /** Resolves with the first `connect_error`. */
  async refused(timeoutMs = 10_000) {
    return this.until(() => this.errors[0], 'connect_error', timeoutMs);
  }

  /** Resolves once `predicate` holds for the events received so far. */
  async received(predicate: (events: ReceivedEvent[]) => boolean, what: string, timeoutMs = 15_000) {
    return this.until(() => (predicate(this.events) ? this.events : undefined), what, timeoutMs);
  }

  emit<T>(event: string, body: unknown, timeoutMs = 10_000): Promise<T> {
    return this.socket.timeout(timeoutMs).emitWithAck(event, body) as Promise<T>;
  }

  close(): void {
    this.socket.disconnect();
  }

  /** What the client saw, for a timeout's message: a stalled feed and a dropped socket look alike otherwise. */
  private describe(): string {
    return JSON.stringify({
      connected: this.socket.connected,
      events: this.events.map((event) => `${event.id}:${event.type}`),
      readies: this.readies.length,
      disconnects: this.disconnects,
      endings: this.endings.length,
      unsubscribed: this.unsubscribed,
      errors: this.errors.map((error) => error.message),
    });
  }

  private async until<T>(probe: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (performance.now() > deadline)
        throw new Error(`realtime client: no ${what} within ${timeoutMs} ms (${this.describe()})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** Staff routing and conversations written straight into the messaging tables, as its pipeline does. */
export const messagingRows = {
  async cluster(db: Queryable, members: readonly string[] = []): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      'INSERT INTO messaging_clusters (name, created_at) VALUES ($1, now()) RETURNING id',
      [`cluster-${randomUUID()}`],
    );
    const id = rows[0]?.id as string;
    for (const member of members) {
      await db.query('INSERT INTO messaging_cluster_members (cluster_id, user_id) VALUES ($1, $2)', [
        id,
        member,
      ]);
    }
    return id;
  },

  async conversation(db: Queryable, clusterId: string | null): Promise<string> {
    const phone = `62812${Math.floor(Math.random() * 1e8)}`;
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO messaging_conversations (phone_number_id, contact_key, contact_phone, cluster_id, capture,
         created_at, updated_at)
       VALUES ('106540352242922', $1, $2, $3, '{"state":"idle"}', now(), now()) RETURNING id`,
      [`wa:${phone}`, phone, clusterId],
    );
    return rows[0]?.id as string;
  },

  /** An inbound message already processed: the messaging worker leaves it alone (no replies, no updates). */
  async message(db: Queryable, conversationId: string, text: string): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO messaging_messages (conversation_id, direction, provider_message_id, type, text, payload,
         provider_timestamp, created_at, processing_status)
       VALUES ($1, 'inbound', $2, 'text', $3, '{}', now(), now(), 'processed') RETURNING id`,
      [conversationId, `wamid.${randomUUID()}`, text],
    );
    return rows[0]?.id as string;
  },
};

/**
 * A staff session token as an external dashboard mints it with `@auth/core` (no `sid`: the gateway takes
 * the dashboard's word for the roles, plugins/auth/README.md, "Sessions and current roles").
 */
export function dashboardToken(
  claims: Record<string, unknown> = {},
  options: Omit<Parameters<typeof mintSession>[0] & object, 'claims'> = {},
): Promise<string> {
  return mintSession({ ...options, claims: { sid: undefined, ...claims } });
}
