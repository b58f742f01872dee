import { connect, createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What the proxy does with a connection it accepts. */
export type ProxyMode =
  /** Forwards bytes both ways (the default). */
  | 'forward'
  /** Closes it at once: the server is unreachable. */
  | 'refuse'
  /** Keeps it open and forwards nothing: a server that accepted and then went silent. */
  | 'hold'
  /**
   * Forwards PostgreSQL's login, up to the server's first ReadyForQuery, then goes silent: a server that
   * let the client in and then vanished.
   */
  | 'login-only';

export interface TcpProxy {
  readonly port: number;
  /** `databaseUrl` with its host and port replaced by the proxy's. */
  url(databaseUrl: string): string;
  /** Applies to connections accepted from now on. */
  setMode(mode: ProxyMode): void;
  /**
   * Black-holes the connections open now: their bytes are dropped both ways and they stay open, as on a
   * network that lost the peer without a reset. New connections follow the mode.
   */
  pause(): void;
  /** When each connection was accepted (performance.now()), in order. */
  readonly accepted: readonly number[];
  /** Client connections open now. */
  readonly open: number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
  silent: boolean;
}

/**
 * A TCP proxy on loopback between a client and `target`, to cut, silence or refuse a connection the way a
 * network does: what `pg_terminate_backend` cannot show (a connection that never answers again).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<Pair>();
  const accepted: number[] = [];

  const server = createServer((client) => {
    accepted.push(performance.now());
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    const pair: Pair = { client, upstream: null, silent: mode === 'hold' };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', end).on('close', end);
    // Always read, so that the client closing its side is noticed even while nothing is forwarded.
    client.on('data', (chunk: Buffer) => {
      if (!pair.silent) pair.upstream?.write(chunk);
    });
    if (mode === 'forward') pair.upstream = connectUpstream(target, pair, end);
    if (mode === 'login-only')
      pair.upstream = connectUpstream(target, pair, end, { silenceAfterLogin: true });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy: no port');

  return {
    port: address.port,
    url(databaseUrl) {
      const url = new URL(databaseUrl);
      url.hostname = '127.0.0.1';
      url.port = String(address.port);
      return url.toString();
    },
    setMode(next) {
      mode = next;
    },
    pause() {
      for (const pair of pairs) pair.silent = true;
    },
    accepted,
    get open() {
      return pairs.size;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function connectUpstream(
  target: { host: string; port: number },
  pair: Pair,
  end: () => void,
  options: { silenceAfterLogin?: boolean } = {},
): Socket {
  const upstream = connect(target.port, target.host);
  upstream.on('data', (chunk: Buffer) => {
    if (pair.silent) return;
    pair.client.write(chunk);
    if (options.silenceAfterLogin && endsWithReadyForQuery(chunk)) pair.silent = true;
  });
  upstream.on('error', end).on('close', end);
  return upstream;
}

/**
 * Whether `chunk` ends with a ReadyForQuery message ('Z', length 5, a status byte): the last message of the
 * login, which nothing follows until the client sends a query.
 */
function endsWithReadyForQuery(chunk: Buffer): boolean {
  return chunk.length >= 6 && chunk[chunk.length - 6] === 0x5a && chunk.readInt32BE(chunk.length - 5) === 5;
}
