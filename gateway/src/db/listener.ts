import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './database.ts';
import { backoffDelay, checkListening, closeClient } from './listener-connection.ts';

export interface Listener {
  /** True while LISTEN is in place: notifications are arriving. */
  readonly connected: boolean;
  /** Successful reconnects since the first connect. */
  readonly reconnects: number;
  /** Stops listening; resolves once no connection of the listener is left open and no timer is pending. */
  stop(): Promise<void>;
}

export interface ListenOptions {
  db: Database;
  logger: Logger;
  channels: readonly string[];
  onNotify(channel: string, payload: string): void;
  onConnected?(): void | Promise<void>;
  onDisconnected?(): void;
  /** The first delay before a reconnect; it doubles with each failed attempt. Default 100 ms. */
  reconnectDelayMs?: number;
  /** The ceiling of the reconnect delay. Default 5 s. */
  maxReconnectDelayMs?: number;
  /** How often the connection proves it still listens; 0 disables. Default 10 s. */
  heartbeatMs?: number;
  /** How long a heartbeat may take before the connection counts as lost. Default 5 s. */
  heartbeatTimeoutMs?: number;
  /** The connection's `application_name` (what `pg_stat_activity` shows). Default: the pool's, plus `-listen`. */
  applicationName?: string;
  /** The source of the backoff's jitter, in [0, 1): injected by tests. Default `Math.random`. */
  random?: () => number;
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * A dedicated connection, outside the pool, that LISTENs on `channels` and hands every NOTIFY to
 * `onNotify`. Notifications sent while it is down are lost, so `onConnected` runs after every (re)connect,
 * once LISTEN is in place: the place to reload or drop whatever the notifications keep current (it failing
 * counts as a failed connect). `onDisconnected` runs when a listening connection is lost.
 *
 * A connection is lost when the client reports an error or its end (the backend terminated, the server
 * stopped, the network failed) or when a heartbeat (`pg_listening_channels()`, under a timer, since a
 * black-holed TCP connection never answers) fails, times out or misses a channel; a connect attempt is
 * bounded by the pool's connect timeout for the login and by `heartbeatTimeoutMs` for LISTEN. Reconnects
 * back off exponentially with full jitter, from `reconnectDelayMs` up to `maxReconnectDelayMs`, and start
 * over after a success. At most one connection exists at a time.
 *
 * The first connect must succeed: `listen` rejects otherwise, leaving nothing open (the gateway then
 * refuses boot).
 */
export async function listen(options: ListenOptions): Promise<Listener> {
  for (const channel of options.channels) {
    if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name "${channel}"`);
  }
  const state = new ListenerState(options);
  await state.start();
  return {
    get connected() {
      return state.listening;
    },
    get reconnects() {
      return state.reconnects;
    },
    stop: () => state.stop(),
  };
}

class ListenerState {
  listening = false;
  reconnects = 0;
  /** The one client: connecting, listening, or null while none is (lost, waiting to reconnect, stopped). */
  private current: pg.Client | null = null;
  private started = false;
  private stopped = false;
  /** Failed connects in a row: the exponent of the next delay. */
  private failures = 0;
  /** Connect attempts since the connection was lost, for the log line of the reconnect. */
  private attempts = 0;
  private retry: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly closing = new Set<Promise<void>>();
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly heartbeatMs: number;
  private readonly heartbeatTimeoutMs: number;
  private readonly options: ListenOptions;

  constructor(options: ListenOptions) {
    this.options = options;
    this.initialDelayMs = options.reconnectDelayMs ?? 100;
    this.maxDelayMs = Math.max(options.maxReconnectDelayMs ?? 5_000, this.initialDelayMs);
    this.heartbeatMs = options.heartbeatMs ?? 10_000;
    this.heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 5_000;
  }

  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      await Promise.all(this.closing);
      throw err;
    }
    this.started = true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    clearTimeout(this.heartbeat);
    const client = this.current;
    const wasListening = this.listening;
    this.current = null;
    this.listening = false;
    // A listening connection says goodbye; one still connecting is cut.
    if (client) this.close(client, wasListening);
    await Promise.all(this.closing);
  }

  /** One connect attempt: a new client, LISTEN on every channel, then `onConnected`. Throws when it fails. */
  private async connect(): Promise<void> {
    const client = this.createClient();
    this.current = client;
    try {
      await client.connect();
      await this.listenOn(client);
      this.ensureCurrent(client);
      this.listening = true;
      this.scheduleHeartbeat(client);
      await this.options.onConnected?.();
      this.ensureCurrent(client);
    } catch (err) {
      this.lost(client, err, 'LISTEN connection failed');
      throw err;
    }
  }

  /**
   * LISTEN on every channel, under the heartbeat's timer: a connection that went silent after the login
   * would otherwise hold the attempt forever (the connect timeout covers only the login).
   */
  private async listenOn(client: pg.Client): Promise<void> {
    let timedOut: Error | undefined;
    const timer = setTimeout(() => {
      timedOut = new Error(`LISTEN: no answer within ${this.heartbeatTimeoutMs} ms`);
      this.lost(client, timedOut, 'LISTEN connection failed');
    }, this.heartbeatTimeoutMs);
    try {
      // Channel names are checked in `listen`: identifiers cannot be bound as parameters.
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      // Cutting the connection failed the query; the reason is the silence.
      throw timedOut ?? err;
    } finally {
      clearTimeout(timer);
    }
  }

  private createClient(): pg.Client {
    const base = this.options.db.pool.options;
    const client = new pg.Client({
      ...base,
      application_name: this.options.applicationName ?? `${base.application_name ?? 'gatehouse'}-listen`,
      // The operating system notices a dead peer too, even between heartbeats.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (message) => {
      if (client === this.current) this.deliver(message.channel, message.payload ?? '');
    });
    client.on('error', (err) => this.lost(client, err, 'LISTEN connection lost; reconnecting'));
    client.on('end', () =>
      this.lost(client, new Error('connection ended'), 'LISTEN connection lost; reconnecting'),
    );
    return client;
  }

  private deliver(channel: string, payload: string): void {
    try {
      this.options.onNotify(channel, payload);
    } catch (err) {
      this.options.logger.error(
        { err: { message: (err as Error).message }, channel },
        'LISTEN notification handler failed',
      );
    }
  }

  /** Stopped, or lost while a step was awaited: the attempt ends here. */
  private ensureCurrent(client: pg.Client): void {
    if (client !== this.current) throw new Error(this.stopped ? 'listener stopped' : 'connection lost');
  }

  /**
   * The one place a connection is given up: the client is closed, a listening connection is reported
   * (one warn line, `onDisconnected`) and, after the first connect, a reconnect is scheduled. Events of a
   * client already given up are ignored.
   */
  private lost(client: pg.Client, err: unknown, message: string): void {
    if (client !== this.current) return;
    this.current = null;
    clearTimeout(this.heartbeat);
    const wasListening = this.listening;
    this.listening = false;
    this.close(client, false);
    if (wasListening) {
      this.options.logger.warn(
        { err: { message: (err as Error).message }, channels: this.options.channels },
        message,
      );
      this.options.onDisconnected?.();
    }
    if (this.started) this.scheduleReconnect();
  }

  private close(client: pg.Client, graceful: boolean): void {
    const done = closeClient(client, graceful).finally(() => this.closing.delete(done));
    this.closing.add(done);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retry) return;
    const delay = backoffDelay(this.failures, this.initialDelayMs, this.maxDelayMs, this.options.random);
    this.failures++;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.reconnect();
    }, delay);
    this.retry.unref();
  }

  private async reconnect(): Promise<void> {
    this.attempts++;
    try {
      await this.connect();
    } catch (err) {
      // `lost` has scheduled the next attempt, unless the listener was stopped.
      if (this.stopped) return;
      this.options.logger.debug(
        { err: { message: (err as Error).message }, attempts: this.attempts },
        'LISTEN reconnect attempt failed',
      );
      return;
    }
    this.reconnects++;
    this.options.logger.info(
      { attempts: this.attempts, reconnects: this.reconnects, channels: this.options.channels },
      'LISTEN connection restored',
    );
    this.failures = 0;
    this.attempts = 0;
  }

  private scheduleHeartbeat(client: pg.Client): void {
    if (this.heartbeatMs <= 0) return;
    clearTimeout(this.heartbeat);
    this.heartbeat = setTimeout(() => void this.beat(client), this.heartbeatMs);
    this.heartbeat.unref();
  }

  private async beat(client: pg.Client): Promise<void> {
    const problem = await checkListening(client, this.options.channels, this.heartbeatTimeoutMs);
    if (client !== this.current) return;
    if (problem === null) this.scheduleHeartbeat(client);
    else this.lost(client, new Error(problem), 'LISTEN heartbeat failed; reconnecting');
  }
}
