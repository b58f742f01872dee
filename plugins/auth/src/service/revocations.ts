import type { Clock } from '../../../../gateway/src/clock.ts';
import type { Database } from '../../../../gateway/src/db/database.ts';
import { listen } from '../../../../gateway/src/db/listener.ts';
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

  const listener = await listen({
    db: deps.db,
    logger: deps.logger,
    channels: [REVOKED_CHANNEL],
    // The token's own exp bounds how long the entry matters; a day covers any session length.
    onNotify: (_channel, sid) => {
      if (sid) revoked.set(sid, deps.clock.nowMs() + 86_400_000);
    },
    // Notifications sent while the connection was down are lost: read the list again once LISTEN is back.
    onConnected: async () => {
      for (const row of await sessionStore.revokedAndLive(deps.db.pool, deps.clock.now()))
        revoked.set(row.id, row.expiresAt.getTime());
    },
  });
  const prune = setInterval(() => {
    const now = deps.clock.nowMs();
    for (const [sid, until] of revoked) if (until < now) revoked.delete(sid);
  }, 60_000);
  prune.unref();

  return {
    has: (sid) => revoked.has(sid),
    async stop() {
      clearInterval(prune);
      await listener.stop();
    },
  };
}
