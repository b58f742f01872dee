import pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './database.ts';

export interface Listener {
  /** True while LISTEN is in place: notifications are arriving. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

/**
 * A dedicated connection that LISTENs on `channels` and hands every NOTIFY to `onNotify`, reconnecting
 * with a delay when the connection drops. Notifications sent while it was down are lost, so
 * `onConnected` runs after every (re)connect, once LISTEN is in place: the place to reload or drop
 * whatever the notifications keep current. `onDisconnected` runs when the connection is lost.
 * The first connect must succeed: `listen` rejects otherwise (the gateway then refuses boot).
 */
export async function listen(options: {
  db: Database;
  logger: Logger;
  channels: readonly string[];
  onNotify(channel: string, payload: string): void;
  onConnected?(): void | Promise<void>;
  onDisconnected?(): void;
  reconnectDelayMs?: number;
}): Promise<Listener> {
  for (const channel of options.channels) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name "${channel}"`);
  }
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client(options.db.pool.options);
    next.on('notification', (message) => options.onNotify(message.channel, message.payload ?? ''));
    next.on('error', (err) => {
      options.logger.warn(
        { err: { message: err.message }, channels: options.channels },
        'LISTEN connection lost; reconnecting',
      );
      scheduleReconnect();
    });
    await next.connect();
    // Channel names are checked above: identifiers cannot be bound as parameters.
    for (const channel of options.channels) await next.query(`LISTEN ${channel}`);
    client = next;
    await options.onConnected?.();
  };

  const scheduleReconnect = () => {
    if (stopped || retry) return;
    const old = client;
    client = null;
    options.onDisconnected?.();
    void old?.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => scheduleReconnect());
    }, options.reconnectDelayMs ?? 1_000);
    retry.unref();
  };

  await connect();
  return {
    get connected() {
      return client !== null;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
