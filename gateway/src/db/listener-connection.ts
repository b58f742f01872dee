import type pg from 'pg';

/** How long a goodbye (Terminate) may take before the socket is cut. */
const GOODBYE_MS = 1_000;

/**
 * The delay before reconnect attempt `failures` (0 for the first): exponential backoff with full jitter,
 * a uniform draw below `min(maxMs, initialMs * 2^failures)`, so replicas that lost the same server do not
 * come back in step.
 */
export function backoffDelay(
  failures: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(failures, 30));
  return Math.floor(random() * ceiling);
}

/**
 * One heartbeat: whether `client` still answers, within `timeoutMs`, and still LISTENs on every channel.
 * Resolves to what is wrong, or null. The timer matters: on a black-holed TCP connection the query never
 * answers and no error ever comes.
 */
export async function checkListening(
  client: pg.Client,
  channels: readonly string[],
  timeoutMs: number,
): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`heartbeat: no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const answer = client.query<{ channel: string }>('SELECT pg_listening_channels() AS channel').then(
    ({ rows }) => {
      const listening = new Set(rows.map((row) => row.channel));
      const missing = channels.filter((channel) => !listening.has(channel));
      return missing.length === 0 ? null : `heartbeat: not listening on ${missing.join(', ')}`;
    },
    (err: Error) => `heartbeat: ${err.message}`,
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes `client` and resolves once its socket is closed. `graceful` sends Terminate first (the server
 * ends the session cleanly) and cuts the socket if that takes longer than a second; otherwise the socket is
 * cut at once: a lost connection may never answer, and one still connecting has nothing to say goodbye to.
 */
export async function closeClient(client: pg.Client, graceful: boolean): Promise<void> {
  const socket = client.connection.stream;
  if (socket.closed) return;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  if (graceful) {
    const cut = setTimeout(() => socket.destroy(), GOODBYE_MS);
    client.end().catch(() => undefined);
    await closed;
    clearTimeout(cut);
  } else {
    socket.destroy();
    await closed;
  }
}
