import pg from 'pg';
import type { Clock } from '../../../../gateway/src/clock.ts';
import type { Database } from '../../../../gateway/src/db/database.ts';
import type { Logger } from '../../../../gateway/src/logger.ts';
import { REVOKED_CHANNEL, sessionStore } from '../store/session-store.ts';

export interface RevocationSet {
  /** True when the session id was revoked (checked synchronously on every gated request). */
  has(sid: string): boolean;
  stop(): Promise<void>;
}

/**
 * The revoked session ids this replica refuses, kept in memory so the gate's check costs a Set lookup
 * instead of a query per request. It is filled at start from the table and kept current through
 * LISTEN on `auth_session_revoked`, which every revocation NOTIFYs on commit: a session revoked on any
 * replica is refused on all of them at once (issue 4, "Password change ... immediately").
 *
 * A lost connection could miss notifications, so after every (re)connect the list is read again after
 * LISTEN is in place. Until the first load succeeds, start() fails and the gateway refuses boot.
 */
export async function startRevocationSet(deps: {
  db: Database;
  clock: Clock;
  logger: Logger;
}): Promise<RevocationSet> {
  /** sid → epoch ms after which its token has expired anyway and the entry can go. */
  const revoked = new Map<string, number>();
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | undefined;

  const reload = async () => {
    for (const row of await sessionStore.revokedAndLive(deps.db.pool, deps.clock.now()))
      revoked.set(row.id, row.expiresAt.getTime());
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client(deps.db.pool.options);
    next.on('notification', (message) => {
      // The token's own exp bounds how long the entry matters; a day covers any session length.
      if (message.channel === REVOKED_CHANNEL && message.payload)
        revoked.set(message.payload, deps.clock.nowMs() + 86_400_000);
    });
    next.on('error', (err) => {
      deps.logger.warn(
        { err: { message: err.message } },
        'session revocation listener lost its connection; reconnecting',
      );
      scheduleReconnect();
    });
    await next.connect();
    await next.query(`LISTEN ${REVOKED_CHANNEL}`);
    client = next;
    await reload();
  };

  const scheduleReconnect = () => {
    if (stopped || retry) return;
    const old = client;
    client = null;
    void old?.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => scheduleReconnect());
    }, 1_000);
    retry.unref();
  };

  await connect();
  const prune = setInterval(() => {
    const now = deps.clock.nowMs();
    for (const [sid, until] of revoked) if (until < now) revoked.delete(sid);
  }, 60_000);
  prune.unref();

  return {
    has: (sid) => revoked.has(sid),
    async stop() {
      stopped = true;
      clearInterval(prune);
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
