/**
 * What `bench:realtime` and its helper processes say to each other (bench/lib/child-rpc.ts carries it), and
 * the one clock they share.
 */

/** One socket a client process opens: the agent it is, the cluster room it joins, the gateway it uses. */
export interface SocketPlan {
  index: number;
  clusterId: string;
  sub: string;
  url: string;
}

export interface ConnectRequest {
  sockets: SocketPlan[];
  /** The Auth.js secret and cookie name (the key's salt) to mint each agent's session token with. */
  secret: string;
  cookieName: string;
  /** Handshakes in flight at once in this process: the whole storm at once would time out. */
  concurrency: number;
  timeoutMs: number;
}

export interface ConnectResult {
  ready: number;
  failed: number;
  /** The first few reasons sockets did not become ready. */
  failures: string[];
  seconds: number;
}

/** What one socket received of the writer's messages: sequence numbers and receive times, in order. */
export interface SocketReceipts {
  index: number;
  seqs: Int32Array;
  at: Float64Array;
  /** Each event's `createdAt` (the trigger's clock, just before COMMIT), epoch ms. */
  createdAt: Float64Array;
  /** Times the connection dropped (each followed by a reconnect with the last id seen, as the README's client). */
  disconnects: number;
  /** `resync_required` received: the replay could not cover the gap. */
  resyncs: number;
}

/** The text of the writer's message number `seq`; a client reads the number back from the event's payload. */
export function messageText(seq: number): string {
  return `bench ${seq}`;
}

/** The writer's sequence number in a message text, or null for a message the bench did not write. */
export function seqOf(text: unknown): number | null {
  if (typeof text !== 'string' || !text.startsWith('bench ')) return null;
  const seq = Number(text.slice(6));
  return Number.isInteger(seq) ? seq : null;
}

/**
 * Wall-clock milliseconds with sub-millisecond resolution, comparable between processes on one machine
 * (every process's `performance.timeOrigin` is taken from the same system clock).
 */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
